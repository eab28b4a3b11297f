package schemas

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestReferencesWalkedOnce: a schema whose references reference the same
// schema by several paths (here each of 24 levels references the one below
// it twice, as Apicurio accepts) is compiled with each referenced schema
// walked and parsed once. Before, the walk followed every path: 2^24 of
// them (a dump of two records of a 20-level chain registered on Apicurio
// took 110.6 s and 816 MB; 21 levels, 3 min 12 s here). A diamond of
// Protobuf imports compiles; more than maxReferencedSchemas distinct
// schemas referenced fail that id.
func TestReferencesWalkedOnce(t *testing.T) {
	const levels = 24
	ss := []*catalog.Schema{{ID: 1, Type: catalog.SchemaAvro, Schema: `{"type":"record","name":"L0","fields":[{"name":"x","type":"long"}]}`}}
	for n := 1; n <= levels; n++ {
		ss = append(ss, &catalog.Schema{ID: n + 1, Type: catalog.SchemaAvro,
			Schema: fmt.Sprintf(`{"type":"record","name":"L%d","fields":[{"name":"a","type":"L%d"}]}`, n, n-1),
			References: []catalog.SchemaReference{
				{Name: fmt.Sprintf("L%d", n-1), Subject: fmt.Sprintf("lvl%d", n-1), Version: 1, ID: n},
				{Name: fmt.Sprintf("L%db", n-1), Subject: fmt.Sprintf("lvl%d", n-1), Version: 1, ID: n}}})
	}
	// Protobuf: a diamond (money imported by the schema and by order).
	ss = append(ss,
		&catalog.Schema{ID: 100, Type: catalog.SchemaProtobuf, Schema: "syntax = \"proto3\";\nmessage Money { int64 units = 1; }\n"},
		&catalog.Schema{ID: 101, Type: catalog.SchemaProtobuf, Schema: "syntax = \"proto3\";\nimport \"a/money.proto\";\nmessage Order { Money total = 1; }\n",
			References: []catalog.SchemaReference{{Name: "a/money.proto", Subject: "m", Version: 1, ID: 100}}},
		&catalog.Schema{ID: 102, Type: catalog.SchemaProtobuf, Schema: "syntax = \"proto3\";\nimport \"a/money.proto\";\nimport \"a/order.proto\";\nmessage Both { Money m = 1; Order o = 2; }\n",
			References: []catalog.SchemaReference{{Name: "a/money.proto", Subject: "m", Version: 1, ID: 100}, {Name: "a/order.proto", Subject: "o", Version: 1, ID: 101}}},
	)
	// More distinct schemas referenced than the bound: a wide one.
	wide := &catalog.Schema{ID: 200, Type: catalog.SchemaAvro, Schema: `"long"`}
	for i := range maxReferencedSchemas + 1 {
		id := 1000 + i
		ss = append(ss, &catalog.Schema{ID: id, Type: catalog.SchemaAvro, Schema: fmt.Sprintf(`{"type":"fixed","name":"F%d","size":1}`, i)})
		wide.References = append(wide.References, catalog.SchemaReference{Name: fmt.Sprintf("F%d", i), Subject: "f", Version: i + 1, ID: id})
	}
	ss = append(ss, wide)
	r := resolverWith(t, ss...)
	for _, c := range []struct {
		name  string
		value []byte
		want  string // decoded, or the failure's reason
	}{
		{"a chain of double references", []byte{0, 0, 0, 0, levels + 1, 14}, strings.Repeat(`{"a":`, levels) + `{"x":7}` + strings.Repeat("}", levels)},
		{"a diamond of imports", []byte{0, 0, 0, 0, 102, 0, 0x0a, 2, 0x08, 5, 0x12, 4, 0x0a, 2, 0x08, 6}, `{"m":{"units":"5"},"o":{"total":{"units":"6"}}}`},
		{"too many referenced schemas", []byte{0, 0, 0, 0, 200, 2}, "schema 200 does not compile: references more than 1000 schemas"},
	} {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan string, 1)
			go func() {
				out, _, _, fail := r.Decode(t.Context(), c.value, nil)
				if fail != nil {
					done <- fail.Reason
					return
				}
				done <- strings.ReplaceAll(string(out), " ", "")
			}()
			select {
			case got := <-done:
				if got != c.want {
					t.Fatalf("got %.300s\nwant %s", got, c.want)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("not decoded after 20 s")
			}
		})
	}
}
