package catalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/klauspost/compress/s2"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// RowGroupRows bounds the rows per Parquet row group, and so the memory a
// writer holds before it flushes.
const RowGroupRows = 128 * 1024

// schema is Row's, with the decoded text (value_decoded, key_decoded) in
// Snappy instead of the files' zstd (see snappyCodec).
var schema = withCodec(parquet.SchemaOf(Row{}), snappyCodec, "value_decoded", "key_decoded")

// typedSchema is TypedRow's: Row's, then the typed columns, which are in
// Snappy too (derived from the decoded text, like it). A file of decoded
// values keeps its exact value bytes (Avro, Protobuf: denser than the
// text, and compressing less) in Snappy as well: zstd on them cost about
// 500 CPU ns a row more than S2 for 14 bytes a row less (the bench event,
// BenchmarkWriteRows/avro-typed), and the typed columns had made the
// dump's writer the larger part of an Avro dump's cost.
var typedSchema = withCodec(parquet.SchemaOf(TypedRow{}), snappyCodec, append(typedCodecColumns(), "value")...)

func typedCodecColumns() []string {
	names := []string{"value_decoded", "key_decoded"}
	for k, n := range map[Kind]int{KindString: TypedStrings, KindInt: TypedInts, KindFloat: TypedFloats, KindBool: TypedBools} {
		for i := range n {
			names = append(names, typedName(k, i))
		}
	}
	return names
}

// withCodec is s with the top-level columns named compressed by codec. The
// columns keep their order (a parquet.Group would sort them), so the
// schema still equals Row's and the writer keeps its direct path from the
// Go struct to the columns.
func withCodec(s *parquet.Schema, codec compress.Codec, names ...string) *parquet.Schema {
	fields := slices.Clone(s.Fields())
	for _, n := range names {
		i := slices.IndexFunc(fields, func(f parquet.Field) bool { return f.Name() == n })
		if i < 0 || !fields[i].Leaf() {
			panic(fmt.Sprintf("catalog: no leaf column %q in Row", n))
		}
		fields[i] = codecField{fields[i], codec}
	}
	return parquet.NewSchema(s.Name(), orderedGroup{s, fields})
}

type orderedGroup struct {
	parquet.Node
	fields []parquet.Field
}

func (g orderedGroup) Fields() []parquet.Field { return g.fields }

type codecField struct {
	parquet.Field
	codec compress.Codec
}

func (f codecField) Compression() compress.Codec { return f.codec }

// snappyCodec writes Snappy with S2's encoder (its Snappy-compatible
// output, read by any Snappy decoder), which took about a quarter of
// zstd's CPU for the bench event's JSON (300 against 1,190 ns a value on a
// busy machine) for 56 bytes a value instead of 35. The decoded text is
// derived (the exact bytes and the writer schema, both stored, give it
// again), and written once per Avro record: the dump spent more on
// compressing it than on decoding it.
var snappyCodec = &s2Snappy{}

type s2Snappy struct{}

func (*s2Snappy) String() string                            { return "SNAPPY" }
func (*s2Snappy) CompressionCodec() format.CompressionCodec { return format.Snappy }

func (*s2Snappy) Encode(dst, src []byte) ([]byte, error) {
	return s2.EncodeSnappy(dst[:cap(dst)], src), nil
}

func (*s2Snappy) Decode(dst, src []byte) ([]byte, error) {
	return parquet.Snappy.Decode(dst, src)
}

// WriteDataFile commits rows (sorted by offset, non-empty) of tp as one
// Parquet file named for its offset range, and returns its manifest entry.
// The file is complete on disk before this returns; it is not yet listed in
// the manifest, which is the caller's next step.
func (d *Dir) WriteDataFile(ctx context.Context, tp TopicPartition, rows []Row, snapshot string) (FileEntry, error) {
	if len(rows) == 0 {
		return FileEntry{}, fmt.Errorf("write data file of %s: no rows", tp)
	}
	w, err := d.NewFileWriter(ctx, tp, snapshot)
	if err != nil {
		return FileEntry{}, err
	}
	if err := w.Write(rows); err != nil {
		w.Abort()
		return FileEntry{}, err
	}
	return w.Commit(ctx)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ReadDataFile reads every row of a data file. Meant for tests and tools;
// queries go through DuckDB.
func ReadDataFile(path string) ([]Row, error) {
	f, err := openRegular("", path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	pf, err := OpenParquet(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	r := parquet.NewGenericReader[Row](pf, schema)
	defer r.Close()
	rows := make([]Row, r.NumRows())
	n, err := r.Read(rows)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	readHeaders(rows[:n])
	return rows[:n], nil
}

// checkDataFile opens a committed file's footer and compares it with its
// manifest entry.
func checkDataFile(path string, fe FileEntry) error {
	f, err := openRegular("", path)
	if err != nil {
		return fmt.Errorf("missing: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() != fe.Bytes {
		return fmt.Errorf("size %d bytes, manifest says %d (truncated or rewritten)", st.Size(), fe.Bytes)
	}
	return checkParquet(f, st.Size(), fe)
}

// CheckColumns says whether a data file's schema has the columns every
// reader of topicsnap's files names (viewColumns: every column a data file
// of topicsnap's has had since the first), each of topicsnap's columns it
// has of a type its views read (ColumnReads): a valid Parquet file without
// one, or with one of another type (written by another tool, or
// rewritten), would fail every query of its topic's views with a binder or
// conversion error, or the open of the whole folder. A column of another
// width of signed integer where nothing is lost (a partition of INT64, as
// DuckDB may rewrite it) still reads, and verify (checkParquet) holds a
// file to the same test. The decoded columns (value_decoded, key_decoded, ...) came
// later: a file may lack them, and the views read such files by name.
func CheckColumns(s *parquet.Schema) error {
	if _, ok := s.Lookup("headers", "list", "element", "key"); !ok {
		if leaf, ok := s.Lookup("headers"); ok {
			return fmt.Errorf("not a topicsnap file: column \"headers\" is %s, where topicsnap's views read a list of (key VARCHAR, value BLOB) (%s)", sqlTypeName(leaf.Node.Type()), retypedFix)
		}
	}
	for _, path := range schema.Columns() {
		got, ok := s.Lookup(path...)
		if !ok {
			continue
		}
		want, _ := schema.Lookup(path...)
		if !ColumnReads(want.Node.Type(), got.Node.Type()) {
			return fmt.Errorf("not a topicsnap file: column %q is %s, where topicsnap's views read %s (%s)", strings.Join(path, "."), sqlTypeName(got.Node.Type()), sqlTypeName(want.Node.Type()), retypedFix)
		}
	}
	for _, name := range viewColumns {
		if _, ok := s.Lookup(name); ok {
			continue
		}
		if _, ok := s.Lookup(name, "list", "element", "key"); ok && name == "headers" {
			continue
		}
		return fmt.Errorf("not a topicsnap file: no column %q", name)
	}
	return nil
}

// viewColumns are the columns of Row every data file of topicsnap's has
// had (since the first), which the views read from the first file of a
// topic's list without union_by_name.
var viewColumns = []string{"partition", "offset", "timestamp", "timestamp_type", "key", "value", "headers",
	"leader_epoch", "producer_id", "producer_epoch", "is_transactional", "is_control", "control_type", "txn_state", "schema_id"}

// retypedFix is the fix of a data file whose column is of another type.
const retypedFix = "put topicsnap's file back from a backup, or remove the partition folder and dump the partition again"

// ColumnReads says whether a column of type got reads where topicsnap
// writes want, whichever file of a topic's list DuckDB takes its types
// from (the first, its columns cast to them): the same family, where
// every cast between its members keeps the value. Integers: a signed
// INT32 or INT64 where topicsnap writes INT32 (partition, epochs, schema
// ids), only INT64 where it writes INT64 (offset, producer id: an INT32
// or a VARCHAR would fail, or cut, the other files' offsets). Timestamps:
// a TIMESTAMP of any unit, with or without time zone, or INT96 (not a
// BIGINT of milliseconds, a DATE or a VARCHAR). Text: a string (VARCHAR,
// ENUM, JSON); bytes (key, value, a header's value): BLOB only, a VARCHAR
// failing decode() and octet_length(). A BOOLEAN is a BOOLEAN.
func ColumnReads(want, got parquet.Type) bool {
	switch {
	case isTimestamp(want):
		return got.Kind() == parquet.Int96 || got.Kind() == parquet.Int64 && isTimestamp(got)
	case want.Kind() == parquet.Int32:
		return (got.Kind() == parquet.Int32 || got.Kind() == parquet.Int64) && plainSignedInt(got)
	case want.Kind() == parquet.Int64:
		return got.Kind() == parquet.Int64 && plainSignedInt(got)
	case want.Kind() == parquet.ByteArray && isString(want):
		return got.Kind() == parquet.ByteArray && isString(got)
	case want.Kind() == parquet.ByteArray:
		return got.Kind() == parquet.ByteArray && got.LogicalType() == nil && got.ConvertedType() == nil
	default:
		return got.Kind() == want.Kind()
	}
}

func isTimestamp(t parquet.Type) bool {
	if lt := t.LogicalType(); lt != nil {
		_, ok := lt.Value.(*format.TimestampType)
		return ok
	}
	if ct := t.ConvertedType(); ct != nil {
		return *ct == deprecated.TimestampMillis || *ct == deprecated.TimestampMicros
	}
	return false
}

// plainSignedInt: an integer type without annotation, or annotated a
// signed integer of 32 or 64 bits.
func plainSignedInt(t parquet.Type) bool {
	if lt := t.LogicalType(); lt != nil {
		it, ok := lt.Value.(*format.IntType)
		return ok && it.IsSigned && it.BitWidth >= 32
	}
	if ct := t.ConvertedType(); ct != nil {
		return *ct == deprecated.Int32 || *ct == deprecated.Int64
	}
	return true
}

func isString(t parquet.Type) bool {
	if lt := t.LogicalType(); lt != nil {
		switch lt.Value.(type) {
		case *format.StringType, *format.EnumType, *format.JsonType:
			return true
		}
		return false
	}
	if ct := t.ConvertedType(); ct != nil {
		return *ct == deprecated.UTF8 || *ct == deprecated.Enum || *ct == deprecated.Json
	}
	return false
}

// sqlTypeName is the name DuckDB gives a Parquet type as it reads it
// (BIGINT, VARCHAR, TIMESTAMP), for messages.
func sqlTypeName(t parquet.Type) string {
	lt := t.LogicalType()
	switch {
	case isTimestamp(t) || t.Kind() == parquet.Int96:
		return "TIMESTAMP"
	case isString(t):
		return "VARCHAR"
	case lt != nil:
		switch v := lt.Value.(type) {
		case *format.IntType:
			name := map[int8]string{8: "TINYINT", 16: "SMALLINT", 32: "INTEGER", 64: "BIGINT"}[v.BitWidth]
			if !v.IsSigned {
				name = "U" + name
			}
			return name
		case *format.DateType:
			return "DATE"
		case *format.DecimalType:
			return "DECIMAL"
		}
		return lt.String()
	}
	switch t.Kind() {
	case parquet.Boolean:
		return "BOOLEAN"
	case parquet.Int32:
		return "INTEGER"
	case parquet.Int64:
		return "BIGINT"
	case parquet.Float:
		return "FLOAT"
	case parquet.Double:
		return "DOUBLE"
	case parquet.ByteArray:
		return "BLOB"
	}
	return t.Kind().String()
}

// checkParquet reads a file's footer (size bytes at r) and compares it
// with its manifest entry: rows and topicsnap's columns.
func checkParquet(r io.ReaderAt, size int64, fe FileEntry) error {
	pf, err := OpenParquet(r, size)
	if err != nil {
		return err
	}
	if pf.NumRows() != fe.Records {
		return fmt.Errorf("%d rows, manifest says %d", pf.NumRows(), fe.Records)
	}
	// The views read header keys stored as bytes only of a topic whose
	// manifests count some: a manifest that says none of a file holding
	// some would show those keys as empty text.
	if n, ok := rawHeaderKeys(pf); ok && n != fe.RawHeaderKeys {
		return fmt.Errorf("%d header keys stored as bytes (key_raw), manifest says %d", n, fe.RawHeaderKeys)
	}
	// Each of topicsnap's columns the file has is of a type the views read
	// (a value of INTEGER fails every read of the topic's views, the file
	// being valid Parquet of the right size); what they read passes, as a
	// partition of INT64 that DuckDB wrote again.
	return CheckColumns(pf.Schema())
}

// rawHeaderKeys counts the non-null values of the file's key_raw column
// from its row groups' statistics (0 of a file written before the column
// existed); ok is false when a row group does not say.
func rawHeaderKeys(pf *parquet.File) (n int64, ok bool) {
	leaf, found := pf.Schema().Lookup("headers", "list", "element", "key_raw")
	if !found {
		return 0, true // a file written before key_raw existed holds none
	}
	for _, rg := range pf.Metadata().RowGroups {
		if leaf.ColumnIndex >= len(rg.Columns) {
			return 0, false
		}
		md := rg.Columns[leaf.ColumnIndex].MetaData
		if md.Statistics.NullCount > md.NumValues || md.Statistics.NullCount < 0 {
			return 0, false
		}
		n += md.NumValues - md.Statistics.NullCount
	}
	return n, true
}

// checkPages reads every page of every column of each row group of the
// size bytes of Parquet at r, one page at a time (memory: a page and a
// 1 MiB read buffer, whatever the file's size): each page's CRC-32, which
// the writer records, is checked, and the page is decompressed and
// decoded. A page no reader could read (bit rot inside the file, its size
// and footer intact) is named by its row group and column.
func checkPages(ctx context.Context, r io.ReaderAt, size int64) error {
	pf, err := OpenParquet(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true), parquet.ReadBufferSize(1<<20))
	if err != nil {
		return err
	}
	columns := pf.Schema().Columns()
	for g, rg := range pf.RowGroups() {
		for c, chunk := range rg.ColumnChunks() {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := readPages(chunk); err != nil {
				name := fmt.Sprint(c)
				if c < len(columns) {
					name = strings.Join(columns[c], ".")
				}
				return fmt.Errorf("corrupt data in row group %d, column %q: %v", g, name, err)
			}
		}
	}
	return nil
}

// readPages reads every page of chunk and lets it go.
func readPages(chunk parquet.ColumnChunk) (err error) {
	pages := chunk.Pages()
	defer func() {
		// A page that passed its CRC but decodes to nonsense must not take
		// the process down: it is a damaged file, named.
		if p := recover(); p != nil {
			err = fmt.Errorf("page does not decode: %v", p)
		}
		if cerr := pages.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		parquet.Release(p)
	}
}
