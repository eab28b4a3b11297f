package queries

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/jsonbound"
	"github.com/topicsnap/topicsnap/internal/jsonfit"
)

// registerFunctions adds the Kafka-aware scalar functions to the database.
func registerFunctions(conn *sql.Conn) error {
	blob, err := duckdb.NewTypeInfo(duckdb.TYPE_BLOB)
	if err != nil {
		return err
	}
	varchar, _ := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	integer, _ := duckdb.NewTypeInfo(duckdb.TYPE_INTEGER)
	keyOf := func(v driver.Value) []byte {
		switch k := v.(type) {
		case []byte:
			return k
		case string:
			return []byte(k)
		}
		return nil
	}
	nOf := func(v driver.Value) (int32, error) {
		n, ok := v.(int32)
		if !ok || n <= 0 {
			return 0, fmt.Errorf("partition count must be a positive integer, got %v", v)
		}
		return n, nil
	}
	partition := func(f func([]byte, int32) int32) duckdb.RowExecutorFn {
		return func(values []driver.Value) (any, error) {
			n, err := nOf(values[1])
			if err != nil {
				return nil, err
			}
			return f(keyOf(values[0]), n), nil
		}
	}
	set := func(name string, in2 bool, exec duckdb.RowExecutorFn) error {
		var fs []duckdb.ScalarFunc
		for _, kt := range []duckdb.TypeInfo{blob, varchar} {
			inputs := []duckdb.TypeInfo{kt}
			if in2 {
				inputs = append(inputs, integer)
			}
			fs = append(fs, &udf{cfg: duckdb.ScalarFuncConfig{InputTypeInfos: inputs, ResultTypeInfo: integer},
				exec: duckdb.ScalarFuncExecutor{RowExecutor: exec}})
		}
		if err := duckdb.RegisterScalarUDFSet(conn, name, fs...); err != nil {
			return fmt.Errorf("register %s: %w", name, err)
		}
		return nil
	}
	if err := set("kafka_partition", true, partition(catalog.JavaPartition)); err != nil {
		return err
	}
	if err := set("kafka_partition_crc32", true, partition(catalog.CRC32Partition)); err != nil {
		return err
	}
	if err := set("murmur2", false, func(values []driver.Value) (any, error) { return catalog.Murmur2(keyOf(values[0])), nil }); err != nil {
		return err
	}
	// json_bound(text): why a JSON value is past jsonbound's bounds, NULL
	// within them (see boundError).
	var fs []duckdb.ScalarFunc
	for _, kt := range []duckdb.TypeInfo{blob, varchar} {
		fs = append(fs, &udf{cfg: duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{kt}, ResultTypeInfo: varchar},
			exec: duckdb.ScalarFuncExecutor{RowExecutor: func(values []driver.Value) (any, error) {
				if r := jsonbound.Check(keyOf(values[0])); r != "" {
					return r, nil
				}
				return nil, nil
			}}})
	}
	if err := duckdb.RegisterScalarUDFSet(conn, "json_bound", fs...); err != nil {
		return fmt.Errorf("register json_bound: %w", err)
	}
	// json_fit(text, structure): why a JSON value does not fit a structure
	// inferred from a sample (internal/jsonfit), NULL when it does (see
	// fitted). The structure is a constant, compiled once a statement.
	fit := &udf{cfg: duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{varchar, varchar}, ResultTypeInfo: varchar},
		exec: duckdb.ScalarFuncExecutor{ScalarBinder: bindFit, ChunkContextExecutor: execFit}}
	if err := duckdb.RegisterScalarUDF(conn, "json_fit", fit); err != nil {
		return fmt.Errorf("register json_fit: %w", err)
	}
	// kafka_offsets_record(key, value): a record of __consumer_offsets
	// decoded, as JSON text (grouplog.go); a NULL value is a tombstone, so
	// NULLs reach the function. Volatile: DuckDB would otherwise evaluate
	// it once for each field a view reads from its answer.
	rec := &udf{cfg: duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{blob, blob}, ResultTypeInfo: varchar, SpecialNullHandling: true, Volatile: true},
		exec: duckdb.ScalarFuncExecutor{RowExecutor: func(values []driver.Value) (any, error) {
			if values[0] == nil {
				return nil, nil // no key: not a record of the log
			}
			return offsetsRecordJSON(keyOf(values[0]), keyOf(values[1]))
		}}}
	if err := duckdb.RegisterScalarUDF(conn, "kafka_offsets_record", rec); err != nil {
		return fmt.Errorf("register kafka_offsets_record: %w", err)
	}
	// kafka_offsets_commit(key, value): an offset commit of
	// __consumer_offsets as flat JSON text, NULL for any other record.
	commit := &udf{cfg: duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{blob, blob}, ResultTypeInfo: varchar, SpecialNullHandling: true, Volatile: true},
		exec: duckdb.ScalarFuncExecutor{RowExecutor: func(values []driver.Value) (any, error) {
			if s, ok := offsetsCommitJSON(keyOf(values[0]), keyOf(values[1])); ok {
				return s, nil
			}
			return nil, nil
		}}}
	if err := duckdb.RegisterScalarUDF(conn, "kafka_offsets_commit", commit); err != nil {
		return fmt.Errorf("register kafka_offsets_commit: %w", err)
	}
	return nil
}

// fitKey holds a json_fit call's compiled structure in its context.
type fitKey struct{}

// compiledFit is a json_fit call's structure: t, or why it did not
// compile (then every value says so: a check that does not know says it).
type compiledFit struct {
	t      *jsonfit.Type
	reason string
}

func bindFit(ctx context.Context, args []duckdb.ScalarUDFArg) (context.Context, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	c := compiledFit{reason: jsonfit.Prefix + "the structure the value is checked against is not a constant; its fields are not read (the bytes are in value_raw)"}
	if len(args) == 2 && args[1].Foldable {
		s, _ := args[1].Value.(string)
		t, err := jsonfit.Compile(s)
		if err != nil {
			c.reason = jsonfit.Prefix + err.Error() + "; its fields are not read (the bytes are in value_raw)"
		} else {
			c = compiledFit{t: t}
		}
	}
	return context.WithValue(ctx, fitKey{}, c), nil
}

// execFit checks a chunk of values, reading them in place (no copy).
func execFit(ctx context.Context, it *duckdb.ChunkIteratorState) error {
	c, _ := ctx.Value(fitKey{}).(compiledFit)
	in, err := it.GetInputChunk().GetVector(0)
	if err != nil {
		return err
	}
	view, err := duckdb.GetVectorView[string](in)
	if err != nil {
		return err
	}
	out, err := duckdb.GetVectorWriter[string](it.GetResultVector())
	if err != nil {
		return err
	}
	for row := range view.Len() {
		v, ok, err := view.GetValueBorrowed(row)
		if err != nil {
			return err
		}
		r := ""
		if ok {
			if c.t == nil {
				r = c.reason
			} else {
				r = c.t.Check(unsafe.Slice(unsafe.StringData(v), len(v)))
			}
		}
		if r == "" {
			err = out.SetNull(row)
		} else {
			err = out.Set(row, r)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

type udf struct {
	cfg  duckdb.ScalarFuncConfig
	exec duckdb.ScalarFuncExecutor
}

func (u *udf) Config() duckdb.ScalarFuncConfig     { return u.cfg }
func (u *udf) Executor() duckdb.ScalarFuncExecutor { return u.exec }
