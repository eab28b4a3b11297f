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
// reader of topicsnap's files names (partition, offset, timestamp, key,
// value, headers): a valid Parquet file without one (written by another
// tool, or rewritten) would fail every query of its topic's views with a
// binder error. Types are verify's to compare (checkParquet): a column of
// another kind of integer still reads.
func CheckColumns(s *parquet.Schema) error {
	for _, name := range []string{"partition", "offset", "timestamp", "key", "value", "headers"} {
		if _, ok := s.Lookup(name); !ok {
			if _, ok := s.Lookup(name, "list", "element", "key"); !ok {
				return fmt.Errorf("not a topicsnap file: no column %q", name)
			}
		}
	}
	return nil
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
	if err := CheckColumns(pf.Schema()); err != nil {
		return err
	}
	// Each of topicsnap's columns the file has is of its type: a column of
	// another type (a value of INTEGER) fails every read of the topic's
	// views, the file being valid Parquet of the right size.
	for _, path := range schema.Columns() {
		got, ok := pf.Schema().Lookup(path...)
		if !ok {
			continue
		}
		want, _ := schema.Lookup(path...)
		if g, w := got.Node.Type().Kind(), want.Node.Type().Kind(); g != w {
			return fmt.Errorf("not a topicsnap file: column %q is %s, not %s", strings.Join(path, "."), g, w)
		}
	}
	return nil
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
