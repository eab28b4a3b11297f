package schemas

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestMergeAcrossVersions: the union by name of three Avro versions, an
// int promoted to long, and a type change that cannot be united, named.
func TestMergeAcrossVersions(t *testing.T) {
	r := resolverWith(t,
		&catalog.Schema{ID: 1, Type: catalog.SchemaAvro, Schema: `{"type":"record","name":"R","fields":[{"name":"id","type":"string"},{"name":"n","type":"int"},{"name":"x","type":"long"}]}`},
		&catalog.Schema{ID: 2, Type: catalog.SchemaAvro, Schema: `{"type":"record","name":"R","fields":[{"name":"id","type":"string"},{"name":"n","type":"long"},{"name":"note","type":["null","string"]}]}`},
		&catalog.Schema{ID: 3, Type: catalog.SchemaAvro, Schema: `{"type":"record","name":"R","fields":[{"name":"id","type":"string"},{"name":"x","type":"string"},{"name":"at","type":{"type":"long","logicalType":"timestamp-micros"}}]}`},
	)
	var merged *Type
	var conflicts []string
	for id := 1; id <= 3; id++ {
		vt, err := r.ValueType(context.Background(), id, nil)
		if err != nil {
			t.Fatal(err)
		}
		merged = Merge(merged, vt, "", &conflicts)
	}
	want := `STRUCT("id" VARCHAR, "n" BIGINT, "x" VARCHAR, "note" VARCHAR, "at" TIMESTAMPTZ)`
	if got := merged.SQL(); got != want {
		t.Fatalf("merged\n got %s\nwant %s", got, want)
	}
	if !slices.Equal(conflicts, []string{"x: BIGINT and VARCHAR"}) {
		t.Fatalf("conflicts %v", conflicts)
	}
}

// TestProtobufVersionsByFields: the message of each version is found by its
// fields among the top-level names of every version's decoded values, and
// the versions unite by name.
func TestProtobufVersionsByFields(t *testing.T) {
	r := resolverWith(t,
		&catalog.Schema{ID: 1, Type: catalog.SchemaProtobuf, Schema: "syntax = \"proto3\";\nmessage Money { string currency = 1; int64 units = 2; }\nmessage Order { string order_id = 1; int64 qty = 2; Money total = 3; }\n"},
		&catalog.Schema{ID: 2, Type: catalog.SchemaProtobuf, Schema: "syntax = \"proto3\";\nimport \"google/protobuf/timestamp.proto\";\nmessage Order { string order_id = 1; int64 qty = 2; string note = 4; google.protobuf.Timestamp at = 5; }\n"},
	)
	keys := []string{"order_id", "qty", "total", "note", "at"}
	var merged *Type
	var conflicts []string
	for id := 1; id <= 2; id++ {
		vt, err := r.ValueType(context.Background(), id, keys)
		if err != nil {
			t.Fatal(err)
		}
		merged = Merge(merged, vt, "", &conflicts)
	}
	want := `STRUCT("order_id" VARCHAR, "qty" BIGINT, "total" STRUCT("currency" VARCHAR, "units" BIGINT), "note" VARCHAR, "at" TIMESTAMPTZ)`
	if got := merged.SQL(); got != want || len(conflicts) != 0 {
		t.Fatalf("merged\n got %s\nwant %s (%v)", got, want, conflicts)
	}
}

// TestTreeSchemasHaveABoundedType: a type that refers to itself twice (a
// tree: left and right) doubles at every level of its expansion; its SQL
// type is bounded in nodes and in weight (each node its depth plus one:
// maxTypeNodes, maxTypeWeight), made in well under a second, the same
// each time, and its innermost values are their JSON text. Before, a tree
// was expanded to 100,000 records 64 levels deep, and count(value) of one
// record took 59 s and 2.1 GB in the engine. A union of 60,000 branches
// (3 MB of schema) is its JSON text as a whole (it made every query of its
// topic take 3 s or more). A linked list (one self-reference) still
// expands as before: 64 levels of the walk (a union and a record each),
// its last two fields JSON text.
func TestTreeSchemasHaveABoundedType(t *testing.T) {
	r := resolverWith(t,
		&catalog.Schema{ID: 1, Type: catalog.SchemaAvro, Schema: `{"type":"record","name":"Tree","fields":[{"name":"v","type":"int"},{"name":"left","type":["null","Tree"]},{"name":"right","type":["null","Tree"]}]}`},
		&catalog.Schema{ID: 2, Type: catalog.SchemaProtobuf, Schema: "syntax = \"proto3\";\nmessage Tree { int32 v = 1; Tree left = 2; Tree right = 3; }\n"},
		&catalog.Schema{ID: 3, Type: catalog.SchemaAvro, Schema: `{"type":"record","name":"L","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","L"]}]}`},
	)
	var branches []string
	for i := range 60_000 {
		branches = append(branches, fmt.Sprintf(`{"type":"record","name":"U%d","fields":[]}`, i))
	}
	wide := &catalog.Schema{ID: 4, Type: catalog.SchemaAvro, Schema: `{"type":"record","name":"W","fields":[{"name":"id","type":"long"},{"name":"u","type":["null",` + strings.Join(branches, ",") + `]}]}`}
	if err := r.o.Folder.WriteSchema(t.Context(), wide); err != nil {
		t.Fatal(err)
	}
	weight := 0
	count := func(ty *Type) (nodes, json, depth int) {
		weight = 0
		var walk func(*Type, int)
		walk = func(ty *Type, d int) {
			nodes++
			weight += d + 1
			depth = max(depth, d)
			if ty.Kind == KindJSON {
				json++
			}
			if ty.Elem != nil {
				walk(ty.Elem, d+1)
			}
			for _, f := range ty.Fields {
				walk(f.Type, d+1)
			}
		}
		walk(ty, 0)
		return
	}
	for _, c := range []struct {
		id   int
		keys []string
	}{{1, nil}, {2, []string{"v", "left", "right"}}} {
		done := make(chan *Type, 1)
		go func() {
			vt, err := r.ValueType(context.Background(), c.id, c.keys)
			if err != nil {
				t.Error(err)
			}
			done <- vt
		}()
		var vt *Type
		select {
		case vt = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("schema %d: no type after 10 s", c.id)
		}
		if vt == nil {
			continue
		}
		nodes, json, _ := count(vt)
		if nodes > maxTypeNodes || weight > maxTypeWeight || json == 0 {
			t.Errorf("schema %d: %d nodes weighing %d, %d of them JSON text; want at most %d weighing %d, some JSON", c.id, nodes, weight, json, maxTypeNodes, maxTypeWeight)
		}
		again, err := r.ValueType(context.Background(), c.id, c.keys)
		if err != nil || again.SQL() != vt.SQL() {
			t.Errorf("schema %d: a second type differs (%v)", c.id, err)
		}
	}
	wt, err := r.ValueType(context.Background(), 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := wt.SQL(), `STRUCT("id" BIGINT, "u" VARCHAR)`; got != want {
		t.Errorf("a union of 60,000 branches: %.200s, want %s", got, want)
	}
	list, err := r.ValueType(context.Background(), 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if nodes, json, depth := count(list); depth != 33 || json != 2 || nodes > 200 {
		t.Errorf("linked list: depth %d, %d JSON leaves, %d nodes; want 33 STRUCT levels, two, under 200", depth, json, nodes)
	}
}
