package catalog

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// Decoding a data file into Rows, page by page. parquet-go's GenericReader
// rebuilds each Row by reflection and its row reader assembles a
// parquet.Value per leaf per row; restore reads every column of every
// record, and that assembly cost more than reading the pages. ScanDataFile
// instead walks each leaf column's pages with a cursor (leafCursor) and
// takes the values from the pages' own typed arrays (int32, int64, byte
// arrays with their offsets), falling back to parquet.Values only for
// dictionary and boolean pages. Leaves are found by path in the file's own
// schema, so a file written before a column existed reads that column as
// null. Every column of Row is assigned by scanRow: rowLeaves panics at
// start if Row gains a column scanRow does not know. TestDecodeMatchesReconstruct
// holds ScanDataFile to parquet-go's reflection (ReadDataFile) on rows of
// every shape, several row groups and pages included.

// rowLeafPaths are Row's leaf columns in the order of rowLeaves' fields.
var rowLeafPaths = [][]string{
	{"partition"}, {"offset"}, {"timestamp"}, {"timestamp_type"}, {"key"}, {"value"},
	{"headers", "list", "element", "key"}, {"headers", "list", "element", "value"},
	{"headers", "list", "element", "key_raw"}, {"leader_epoch"}, {"producer_id"}, {"producer_epoch"}, {"is_transactional"}, {"is_control"},
	{"control_type"}, {"txn_state"}, {"schema_id"}, {"value_decoded"}, {"value_decode_error"},
	{"key_schema_id"}, {"key_decoded"}, {"key_decode_error"},
}

func init() {
	if n := len(schema.Columns()); n != len(rowLeafPaths) {
		panic(fmt.Sprintf("catalog: Row has %d columns and scanRow assigns %d: teach decode.go the new ones", n, len(rowLeafPaths)))
	}
	for _, p := range rowLeafPaths {
		if _, ok := schema.Lookup(p...); !ok {
			panic(fmt.Sprintf("catalog: no column %v in Row's schema", p))
		}
	}
}

// rowLeaves are the cursors of one row group's columns.
type rowLeaves struct {
	partition, offset, timestamp, timestampType, key, value, headerKey, headerValue, headerKeyRaw,
	leaderEpoch, producerID, producerEpoch, transactional, control, controlType, txnState,
	schemaID, valueDecoded, valueDecodeError, keySchemaID, keyDecoded, keyDecodeError *leafCursor
}

// openRowLeaves opens the cursors of a row group; bufs (one per leaf,
// kept by the caller) lets the value buffers of one group serve the next.
// A leaf not in want (nil: every leaf) is read as a column the file lacks:
// its pages are never read.
func openRowLeaves(s *parquet.Schema, rg parquet.RowGroup, bufs [][]parquet.Value, want []bool) *rowLeaves {
	chunks := rg.ColumnChunks()
	c := make([]*leafCursor, len(rowLeafPaths))
	for i, p := range rowLeafPaths {
		c[i] = &leafCursor{name: p[0], absent: true}
		if want != nil && !want[i] {
			continue
		}
		if l, ok := s.Lookup(p...); ok {
			c[i] = &leafCursor{name: p[0], pages: chunks[l.ColumnIndex].Pages(), maxDef: l.MaxDefinitionLevel, buf: bufs[i]}
		}
	}
	return &rowLeaves{c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13], c[14], c[15], c[16], c[17], c[18], c[19], c[20], c[21]}
}

// close closes the cursors and hands their value buffers back to bufs.
func (l *rowLeaves) close(bufs [][]parquet.Value) {
	for i, c := range []*leafCursor{l.partition, l.offset, l.timestamp, l.timestampType, l.key, l.value, l.headerKey, l.headerValue, l.headerKeyRaw,
		l.leaderEpoch, l.producerID, l.producerEpoch, l.transactional, l.control, l.controlType, l.txnState,
		l.schemaID, l.valueDecoded, l.valueDecodeError, l.keySchemaID, l.keyDecoded, l.keyDecodeError} {
		c.close()
		bufs[i] = c.buf
	}
}

// leafCursor reads one leaf column of a row group level by level (one level
// per row, or per list element for the headers), across its pages.
type leafCursor struct {
	name   string
	absent bool // the file has no such column: every row reads null
	pages  parquet.Pages
	page   parquet.Page
	maxDef int

	n, lv, vi  int // levels in the page, the next level, the next non-null value
	defs, reps []byte
	i32        []int32
	i64        []int64
	data       []byte
	offs       []uint32
	vals       []parquet.Value // a page read value by value (dictionary, boolean): one per level
	generic    bool
	buf        []parquet.Value
}

var errShortColumn = errors.New("column ends before the row group's rows do")

// load makes the cursor stand on a level, reading the next page when the
// current one is used up; false at the end of the column chunk.
func (c *leafCursor) load() (bool, error) {
	if c.lv < c.n {
		return true, nil
	}
	return c.nextPage()
}

func (c *leafCursor) nextPage() (bool, error) {
	for c.lv >= c.n {
		if c.absent || c.pages == nil {
			return false, nil
		}
		if c.page != nil {
			parquet.Release(c.page)
			c.page = nil
		}
		p, err := c.pages.ReadPage()
		if errors.Is(err, io.EOF) && p == nil {
			c.pages.Close()
			c.pages = nil
			return false, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return false, fmt.Errorf("read column %s: %w", c.name, err)
		}
		if err := c.setPage(p); err != nil {
			return false, err
		}
	}
	return true, nil
}

func (c *leafCursor) setPage(p parquet.Page) error {
	c.page, c.lv, c.vi = p, 0, 0
	c.n = int(p.NumValues())
	c.defs, c.reps = p.DefinitionLevels(), p.RepetitionLevels()
	c.generic = p.Dictionary() != nil
	if !c.generic {
		data := p.Data()
		switch p.Type().Kind() {
		case parquet.Int32:
			c.i32 = data.Int32()
		case parquet.Int64:
			c.i64 = data.Int64()
		case parquet.ByteArray:
			c.data, c.offs = data.ByteArray()
		default:
			c.generic = true
		}
	}
	if !c.generic {
		return nil
	}
	if cap(c.buf) < c.n {
		c.buf = make([]parquet.Value, c.n)
	}
	c.vals = c.buf[:c.n]
	r := p.Values()
	for read := 0; read < c.n; {
		k, err := r.ReadValues(c.vals[read:])
		read += k
		if errors.Is(err, io.EOF) || (err == nil && k == 0) {
			c.vals = c.vals[:read]
			c.n = read
			break
		}
		if err != nil {
			return fmt.Errorf("read column %s: %w", c.name, err)
		}
	}
	return nil
}

// mustLoad is load for a column every row has a level in.
func (c *leafCursor) mustLoad() (bool, error) {
	if c.lv < c.n {
		return true, nil
	}
	if c.absent {
		return false, nil
	}
	ok, err := c.nextPage()
	if err == nil && !ok {
		err = fmt.Errorf("column %s: %w", c.name, errShortColumn)
	}
	return ok, err
}

func (c *leafCursor) def() int {
	switch {
	case c.generic:
		return c.vals[c.lv].DefinitionLevel()
	case c.defs == nil:
		return c.maxDef
	}
	return int(c.defs[c.lv])
}

func (c *leafCursor) rep() int {
	switch {
	case c.generic:
		return c.vals[c.lv].RepetitionLevel()
	case c.reps == nil:
		return 0
	}
	return int(c.reps[c.lv])
}

// present reports whether the current level holds a value (not a null).
func (c *leafCursor) present() bool { return c.def() == c.maxDef }

// The value at the current level, which must be present; each takes it and
// steps to the next level.
func (c *leafCursor) int64() int64 {
	var v int64
	if c.generic {
		v = c.vals[c.lv].Int64()
	} else {
		v = c.i64[c.vi]
		c.vi++
	}
	c.lv++
	return v
}

func (c *leafCursor) int32() int32 {
	var v int32
	if c.generic {
		v = c.vals[c.lv].Int32()
	} else {
		v = c.i32[c.vi]
		c.vi++
	}
	c.lv++
	return v
}

func (c *leafCursor) boolean() bool {
	v := c.vals[c.lv].Boolean() // boolean pages are always read value by value
	c.lv++
	return v
}

// bytes is valid until the cursor's next page: callers copy it.
func (c *leafCursor) bytes() []byte {
	var v []byte
	if c.generic {
		v = c.vals[c.lv].ByteArray()
	} else {
		v = c.data[c.offs[c.vi]:c.offs[c.vi+1]]
		c.vi++
	}
	c.lv++
	return v
}

// skip steps over a null level.
func (c *leafCursor) skip() { c.lv++ }

func (c *leafCursor) close() {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
}

// arena hands out copies of page bytes from shared chunks: one allocation
// per 64 KiB of keys, values and header values instead of one per value. A
// non-null empty value stays non-nil. alloc (nil: make) gives the chunks:
// an empty slice of at least n bytes' capacity.
type arena struct {
	chunk []byte
	alloc func(n int) []byte
}

// ArenaChunk is the size of the chunks a scan copies keys, values and
// header values into (a value larger than that has a chunk of its own).
const ArenaChunk = 64 << 10

func (a *arena) copy(b []byte) []byte {
	if cap(a.chunk)-len(a.chunk) < len(b) || a.chunk == nil {
		if n := max(ArenaChunk, len(b)); a.alloc != nil {
			a.chunk = a.alloc(n)[:0]
		} else {
			a.chunk = make([]byte, 0, n)
		}
	}
	n := len(a.chunk)
	a.chunk = append(a.chunk, b...)
	return a.chunk[n:len(a.chunk):len(a.chunk)]
}

// interned keeps one copy of the few distinct strings of a column
// (timestamp types, control types, transaction states, header keys) per
// scan, up to a bound past which each string is its own.
type interned map[string]*string

func (s interned) of(b []byte) *string {
	if p, ok := s[string(b)]; ok {
		return p
	}
	v := string(b)
	if len(s) < 4096 {
		s[v] = &v
	}
	return &v
}

var noHeaders = []Header{}

// scanRow assigns the levels of one row from every cursor to r.
func (l *rowLeaves) scanRow(r *Row, mem *arena, dict interned, hdrs *[]Header) error {
	req64 := func(c *leafCursor) (int64, error) {
		ok, err := c.mustLoad()
		if !ok || !c.present() {
			if ok {
				c.skip()
			}
			return 0, err
		}
		return c.int64(), nil
	}
	req32 := func(c *leafCursor) (int32, error) {
		ok, err := c.mustLoad()
		if !ok || !c.present() {
			if ok {
				c.skip()
			}
			return 0, err
		}
		return c.int32(), nil
	}
	reqBool := func(c *leafCursor) (bool, error) {
		ok, err := c.mustLoad()
		if !ok || !c.present() {
			if ok {
				c.skip()
			}
			return false, err
		}
		return c.boolean(), nil
	}
	// optBytes gives nil for a null (or absent) value and the page's bytes
	// (not copied) otherwise.
	optBytes := func(c *leafCursor) ([]byte, bool, error) {
		ok, err := c.mustLoad()
		if !ok {
			return nil, false, err
		}
		if !c.present() {
			c.skip()
			return nil, false, nil
		}
		return c.bytes(), true, nil
	}
	var err error
	if r.Partition, err = req32(l.partition); err != nil {
		return err
	}
	if r.Offset, err = req64(l.offset); err != nil {
		return err
	}
	if r.Timestamp, err = req64(l.timestamp); err != nil {
		return err
	}
	b, ok, err := optBytes(l.timestampType)
	if err != nil {
		return err
	}
	if ok {
		r.TimestampType = *dict.of(b)
	}
	if b, ok, err = optBytes(l.key); err != nil {
		return err
	} else if ok {
		r.Key = mem.copy(b)
	}
	if b, ok, err = optBytes(l.value); err != nil {
		return err
	} else if ok {
		r.Value = mem.copy(b)
	}
	if err := l.scanHeaders(r, mem, dict, hdrs); err != nil {
		return err
	}
	if r.LeaderEpoch, err = req32(l.leaderEpoch); err != nil {
		return err
	}
	if r.ProducerID, err = req64(l.producerID); err != nil {
		return err
	}
	if r.ProducerEpoch, err = req32(l.producerEpoch); err != nil {
		return err
	}
	if r.Transactional, err = reqBool(l.transactional); err != nil {
		return err
	}
	if r.Control, err = reqBool(l.control); err != nil {
		return err
	}
	if b, ok, err = optBytes(l.controlType); err != nil {
		return err
	} else if ok {
		r.ControlType = dict.of(b)
	}
	if b, ok, err = optBytes(l.txnState); err != nil {
		return err
	} else if ok {
		r.TxnState = dict.of(b)
	}
	if ok, err := l.schemaID.mustLoad(); err != nil {
		return err
	} else if ok {
		if l.schemaID.present() {
			id := l.schemaID.int32()
			r.SchemaID = &id
		} else {
			l.schemaID.skip()
		}
	}
	if b, ok, err = optBytes(l.valueDecoded); err != nil {
		return err
	} else if ok {
		r.ValueDecoded = mem.copy(b)
	}
	if b, ok, err = optBytes(l.valueDecodeError); err != nil {
		return err
	} else if ok {
		r.ValueDecodeError = dict.of(b)
	}
	if ok, err := l.keySchemaID.mustLoad(); err != nil {
		return err
	} else if ok {
		if l.keySchemaID.present() {
			id := l.keySchemaID.int32()
			r.KeySchemaID = &id
		} else {
			l.keySchemaID.skip()
		}
	}
	if b, ok, err = optBytes(l.keyDecoded); err != nil {
		return err
	} else if ok {
		r.KeyDecoded = mem.copy(b)
	}
	if b, ok, err = optBytes(l.keyDecodeError); err != nil {
		return err
	} else if ok {
		r.KeyDecodeError = dict.of(b)
	}
	return nil
}

// scanHeaders reads one row's list of headers: its key and value leaves
// have one level per element (or one for an empty list), the first with
// repetition level 0.
func (l *rowLeaves) scanHeaders(r *Row, mem *arena, dict interned, hdrs *[]Header) error {
	k, v, kr := l.headerKey, l.headerValue, l.headerKeyRaw
	if k.absent {
		r.Headers = noHeaders
		return nil
	}
	start := len(*hdrs)
	for first := true; ; first = false {
		ok, err := k.load()
		if err != nil {
			return err
		}
		if !ok || (!first && k.rep() == 0) {
			if first {
				return fmt.Errorf("column headers: %w", errShortColumn)
			}
			break
		}
		if _, err := v.mustLoad(); err != nil {
			return err
		}
		// A file written before key_raw existed has no such leaf (absent:
		// no levels); one that has it has a level per element.
		krOK := false
		if !kr.absent {
			if krOK, err = kr.mustLoad(); err != nil {
				return err
			}
		}
		if k.def() != k.maxDef { // an empty list: one level, no element
			k.skip()
			v.skip()
			if krOK {
				kr.skip()
			}
			r.Headers = noHeaders
			return nil
		}
		h := Header{Key: *dict.of(k.bytes())}
		if krOK {
			if kr.present() {
				h.Key = string(kr.bytes())
			} else {
				kr.skip()
			}
		}
		if v.present() {
			h.Value = mem.copy(v.bytes())
		} else {
			v.skip()
		}
		*hdrs = append(*hdrs, h)
	}
	r.Headers = (*hdrs)[start:len(*hdrs):len(*hdrs)]
	return nil
}

// ScanDataFile calls fn with the rows of a committed data file in offset
// order, batch rows at a time. The rows of one call are fresh: fn may keep
// them and their byte slices. It stops at the first error of fn or of ctx.
func ScanDataFile(ctx context.Context, path string, batch int, fn func([]Row) error) error {
	return scanDataFile(ctx, path, batch, nil, false, nil, fn)
}

// ScanDataFileColumns is ScanDataFile reading only the named columns of
// Row (its top-level Parquet names: "offset", "key", "headers", ...); every
// other field of the rows is its zero value (nil for the nullable ones, no
// headers), as if the file had no such column. A name Row has no column of
// is an error. Reading fewer columns skips their pages: restore needs 9 of
// the 21.
func ScanDataFileColumns(ctx context.Context, path string, batch int, columns []string, fn func([]Row) error) error {
	return scanColumns(ctx, path, batch, columns, false, nil, fn)
}

// ScanDataFileColumnsReused is ScanDataFileColumns whose calls of fn share
// one slice of rows and one of their headers, overwritten by the next
// call: fn may keep the byte slices of a row (key, value, header values;
// each batch has its own), not the rows or their Headers. A reader that
// turns each row into something else at once (restore) allocates a tenth
// of what it would.
func ScanDataFileColumnsReused(ctx context.Context, path string, batch int, columns []string, fn func([]Row) error) error {
	return scanColumns(ctx, path, batch, columns, true, nil, fn)
}

// ScanDataFileColumnsInto is ScanDataFileColumnsReused copying the keys,
// values and header values of the rows into chunks alloc gives (an empty
// slice of at least n bytes' capacity; n is ArenaChunk unless a value is
// larger): the chunks it asks for between two calls of fn hold the bytes
// of the second call's rows and no other, so a caller can hand them out
// again once it no longer needs that batch's bytes (restore: when every
// record of the batch was acknowledged).
func ScanDataFileColumnsInto(ctx context.Context, path string, batch int, columns []string, alloc func(n int) []byte, fn func([]Row) error) error {
	return scanColumns(ctx, path, batch, columns, true, alloc, fn)
}

func scanColumns(ctx context.Context, path string, batch int, columns []string, reuse bool, alloc func(int) []byte, fn func([]Row) error) error {
	want := make([]bool, len(rowLeafPaths))
	for _, name := range columns {
		found := false
		for i, p := range rowLeafPaths {
			if p[0] == name {
				want[i], found = true, true
			}
		}
		if !found {
			return fmt.Errorf("read %s: Row has no column %q", path, name)
		}
	}
	return scanDataFile(ctx, path, batch, want, reuse, alloc, fn)
}

func scanDataFile(ctx context.Context, path string, batch int, want []bool, reuse bool, alloc func(int) []byte, fn func([]Row) error) error {
	f, err := openRegular("", path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	return scanReader(ctx, path, f, st.Size(), batch, want, reuse, alloc, fn)
}

// scanReader is scanDataFile over r, size bytes of Parquet named path in
// errors: a local file or a bucket's object.
func scanReader(ctx context.Context, path string, r io.ReaderAt, size int64, batch int, want []bool, reuse bool, alloc func(int) []byte, fn func([]Row) error) error {
	pf, err := OpenParquet(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	batch = max(batch, 1)
	dict := interned{}
	var rows []Row
	mem := arena{alloc: alloc}
	var hdrs []Header
	bufs := make([][]parquet.Value, len(rowLeafPaths))
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		err := fn(rows)
		mem = arena{alloc: alloc} // fn may keep the byte slices
		if reuse {
			clear(hdrs) // no header of this batch is kept alive by the next
			rows, hdrs = rows[:0], hdrs[:0]
		} else {
			rows, hdrs = nil, nil // the next batch is fresh: fn may keep these
		}
		return err
	}
	for _, rg := range pf.RowGroups() {
		leaves := openRowLeaves(pf.Schema(), rg, bufs, want)
		err := func() error {
			defer leaves.close(bufs)
			for n := rg.NumRows(); n > 0; n-- {
				if len(rows) == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
					if rows == nil {
						rows = make([]Row, 0, batch)
						hdrs = make([]Header, 0, batch)
					}
				}
				rows = append(rows, Row{})
				if err := leaves.scanRow(&rows[len(rows)-1], &mem, dict, &hdrs); err != nil {
					return fmt.Errorf("read %s: %w", path, err)
				}
				if len(rows) == batch {
					if err := flush(); err != nil {
						return err
					}
				}
			}
			return nil
		}()
		if err != nil {
			return err
		}
	}
	return flush()
}
