package schemas

import (
	"context"
	"slices"
	"testing"

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
