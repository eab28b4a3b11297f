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
