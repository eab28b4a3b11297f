package queries

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/internal/seeds"
)

// damagedTeaShop writes the tea shop's folder (no broker) and damages it
// with each of damage, given the folder; it returns the folder.
func damagedTeaShop(t *testing.T, damage ...func(t *testing.T, dir string)) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 300, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	for _, d := range damage {
		d(t, dir)
	}
	return dir
}

// dataFile is the path of the only data file of partition p of app_events.
func dataFile(t *testing.T, dir string, p int) string {
	t.Helper()
	ms, err := filepath.Glob(filepath.Join(dir, "topic=app_events", "partition="+itoa(p), "*.parquet"))
	if err != nil || len(ms) != 1 {
		t.Fatalf("partition %d's data files: %v %v", p, ms, err)
	}
	return ms[0]
}

func itoa(i int) string { return string(rune('0' + i)) }

// rewrite changes the bytes of partition p's data file in place (its size
// stays the manifest's).
func rewrite(p int, change func(b []byte)) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		path := dataFile(t, dir, p)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		change(b)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// withoutColumn writes partition p's data file again without column col
// (valid Parquet, written by DuckDB) and records its new size in the
// manifest, so that only its columns tell it from a data file of
// topicsnap's.
func withoutColumn(p int, col string) func(t *testing.T, dir string) {
	return rewriteWith(p, "* EXCLUDE ("+quoteIdent(col)+")")
}

// retyped writes partition p's data file again (by DuckDB) with column
// col as expr (of the column, written $C), its size in the manifest.
func retyped(p int, col, expr string) func(t *testing.T, dir string) {
	return rewriteWith(p, "* REPLACE ("+strings.ReplaceAll(expr, "$C", quoteIdent(col))+" AS "+quoteIdent(col)+")")
}

// rewriteWith writes partition p's data file again as DuckDB writes the
// SELECT list sel of it, and records its new size in the manifest.
func rewriteWith(p int, sel string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		path := dataFile(t, dir, p)
		db, err := sql.Open("duckdb", "")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		tmp := path + ".tmp"
		if _, err := db.ExecContext(t.Context(), "COPY (SELECT "+sel+" FROM read_parquet("+quoteString(path)+")) TO "+quoteString(tmp)+" (FORMAT parquet)"); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		d, err := catalog.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		m, err := d.ReadManifest(t.Context(), catalog.TopicPartition{Topic: "app_events", Partition: int32(p)})
		if err != nil {
			t.Fatal(err)
		}
		m.Files[0].Bytes = st.Size()
		if err := d.WriteManifest(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
}

// footerStart is where a Parquet file's footer begins.
func footerStart(b []byte) int {
	return len(b) - 8 - int(binary.LittleEndian.Uint32(b[len(b)-8:]))
}

var (
	// garbage: random bytes of the file's size.
	garbage = func(b []byte) { rand.Read(b) }
	// zeroes: a block of zeroes of the file's size.
	zeroes = func(b []byte) { clear(b) }
	// badFooter: the footer's thrift flipped, its length and magic kept.
	badFooter = func(b []byte) {
		for i := footerStart(b); i < len(b)-8; i += 7 {
			b[i] ^= 0x5a
		}
	}
	// badPages: bit rot in the data pages, the footer and size unchanged.
	badPages = func(b []byte) {
		for i := 200; i < footerStart(b)-200; i += 7 {
			b[i] ^= 0xff
		}
	}
)

// A data file damaged in its footer (garbage or zeroes of the right size,
// a footer that does not decode) costs its partition, as one cut short
// does, whichever file of its topic it is (the first of the views', whose
// footer DuckDB reads to make them, or a later one, whose footer it reads
// when a query reaches it): the folder opens, the other partitions answer,
// and the checks say what they did not judge.
func TestDamagedDataFileCostsItsPartition(t *testing.T) {
	cases := []struct {
		name   string
		p      int
		damage func(t *testing.T, dir string)
	}{
		{"truncated", 0, func(t *testing.T, dir string) {
			if err := os.Truncate(dataFile(t, dir, 0), 2000); err != nil {
				t.Fatal(err)
			}
		}},
		{"garbage of the same size", 0, rewrite(0, garbage)},
		{"zeroes of the same size", 0, rewrite(0, zeroes)},
		{"footer rewritten, magic kept", 0, rewrite(0, badFooter)},
		{"garbage in another partition", 3, rewrite(3, garbage)},
		{"footer rewritten in another partition", 3, rewrite(3, badFooter)},
		{"without the offset column", 0, withoutColumn(0, "offset")},
		{"without the value column in another partition", 3, withoutColumn(3, "value")},
		// Columns the views read beyond those six (every file of
		// topicsnap's has had them): without one, the open of the whole
		// folder failed with DuckDB's binder error.
		{"without the is_control column", 0, withoutColumn(0, "is_control")},
		{"without the txn_state column", 0, withoutColumn(0, "txn_state")},
		{"without the leader_epoch column in another partition", 3, withoutColumn(3, "leader_epoch")},
		// Columns of another type (written by another tool): each failed
		// every check of the topic with DuckDB's conversion or binder
		// error, whichever file of the topic's list it is.
		{"timestamp as BIGINT", 0, retyped(0, "timestamp", "epoch_ms($C)")},
		{"timestamp as BIGINT in another partition", 3, retyped(3, "timestamp", "epoch_ms($C)")},
		{"offset as VARCHAR", 0, retyped(0, "offset", "$C::VARCHAR")},
		{"offset as INTEGER", 0, retyped(0, "offset", "$C::INTEGER")},
		{"key as VARCHAR", 0, retyped(0, "key", "hex($C)")},
		{"value as VARCHAR in another partition", 3, retyped(3, "value", "hex($C)")},
		{"partition as VARCHAR", 0, retyped(0, "partition", "$C::VARCHAR")},
		{"headers as VARCHAR", 0, retyped(0, "headers", "$C::VARCHAR")},
	}
	for _, c := range cases {
		for _, lazy := range []bool{false, true} {
			t.Run(c.name+map[bool]string{false: "", true: "/lazy"}[lazy], func(t *testing.T) {
				dir := damagedTeaShop(t, c.damage)
				ctx := context.Background()
				e, err := Open(ctx, dir, Options{Lazy: lazy})
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				defer e.Close()
				var n int64
				rows, err := e.Query(ctx, "SELECT count(*) FROM app_events")
				if err != nil {
					t.Fatalf("query: %v", err)
				}
				for rows.Next() {
					rows.Scan(&n)
				}
				if err := rows.Err(); err != nil {
					t.Fatalf("query: %v", err)
				}
				rows.Close()
				if n == 0 {
					t.Fatal("no records answered")
				}
				found := false
				for _, p := range e.Problems() {
					found = found || strings.Contains(p, "partition="+itoa(c.p)+"/") && strings.Contains(p, "unreadable data file")
				}
				if !found {
					t.Fatalf("no problem names partition %d's file: %q", c.p, e.Problems())
				}
				r, err := e.RunCheck(ctx, "gaps", CheckOptions{Topic: "app_events"})
				if err != nil {
					t.Fatalf("gaps: %v", err)
				}
				if r.Status == StatusOK || !strings.Contains(r.Message, "not judged: 1 partition") {
					t.Fatalf("gaps: %s %s", r.Status, r.Message)
				}
				if got, _ := r.Summary.Get("unreadable_partitions").([]int32); len(got) != 1 || got[0] != int32(c.p) {
					t.Fatalf("unreadable_partitions %v", r.Summary.Get("unreadable_partitions"))
				}
				for _, o := range []CheckOptions{{Topic: "app_events"}, {Topic: "app_events", ID: "value.event_id"}} {
					for _, check := range []string{"order", "values", "duplicates"} {
						if check == "duplicates" && o.ID == "" || check != "duplicates" && o.ID != "" {
							continue
						}
						if _, err := e.RunCheck(ctx, check, o); err != nil {
							t.Errorf("%s: %v", check, err)
						}
					}
				}
			})
		}
	}
}

// TestRetypedColumnsThatStillRead: a data file DuckDB wrote again (a
// user's tool, a compaction of another tool) whose columns are of types
// every cast of the views keeps (a partition of BIGINT, a timestamp
// without time zone or in microseconds, strings as DuckDB writes them)
// reads as topicsnap's own: no problem, every check answers.
func TestRetypedColumnsThatStillRead(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
	}{
		{"as DuckDB writes it", rewriteWith(0, "*")},
		{"partition as BIGINT", retyped(0, "partition", "$C::BIGINT")},
		{"partition as BIGINT in another partition", retyped(3, "partition", "$C::BIGINT")},
		{"timestamp without time zone", retyped(0, "timestamp", "$C::TIMESTAMP")},
		{"timestamp in microseconds in another partition", retyped(3, "timestamp", "$C::TIMESTAMPTZ")},
		{"leader_epoch as BIGINT", retyped(0, "leader_epoch", "$C::BIGINT")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := damagedTeaShop(t, c.damage)
			ctx := context.Background()
			e, err := Open(ctx, dir, Options{})
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer e.Close()
			if p := e.Problems(); len(p) != 0 {
				t.Fatalf("problems: %q", p)
			}
			// catalog verify accepts what the views read: it flagged a
			// partition of BIGINT ("column \"partition\" is INT64, not
			// INT32"), exit 9, though every query read it.
			d, err := catalog.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, problems, err := d.Verify(ctx); err != nil || len(problems) != 0 {
				t.Fatalf("verify: %v %+v", err, problems)
			}
			for _, o := range []struct {
				check string
				o     CheckOptions
			}{{"gaps", CheckOptions{Topic: "app_events"}}, {"order", CheckOptions{Topic: "app_events"}}, {"values", CheckOptions{Topic: "app_events"}}, {"duplicates", CheckOptions{Topic: "app_events", ID: "value.event_id"}}} {
				r, err := e.RunCheck(ctx, o.check, o.o)
				if err != nil {
					t.Fatalf("%s: %v", o.check, err)
				}
				if strings.Contains(r.Message, "not judged") {
					t.Fatalf("%s: %s %s", o.check, r.Status, r.Message)
				}
			}
		})
	}
}

// A data file DuckDB cannot read mid-query (its pages damaged, size and
// footer intact) is a damaged folder: exit 9, catalog verify as the
// hint, never a user error on an option. TestDamagedPagesAreTheFolders.
func TestDamagedPagesAreTheFolders(t *testing.T) {
	dir := damagedTeaShop(t, rewrite(0, badPages))
	ctx := context.Background()
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer e.Close()
	damaged := func(what string, err error) {
		t.Helper()
		code, hint := exit.Of(err)
		var oe *OptionError
		if err == nil || !errors.Is(err, ErrDamagedData) || code != exit.BadFolder || !strings.Contains(hint, "catalog verify --dir DIR") || errors.As(err, &oe) {
			t.Errorf("%s: exit %d, hint %q: %v", what, code, hint, err)
		}
		if err != nil && strings.Contains(err.Error(), "LINE ") {
			t.Errorf("%s: the views' SQL in the message: %v", what, err)
		}
	}
	cases := []struct {
		name string
		run  func() error
	}{
		{"check values", func() error {
			_, err := e.RunCheck(ctx, "values", CheckOptions{Topic: "app_events"})
			return err
		}},
		{"check duplicates --id value.event_id", func() error {
			_, err := e.RunCheck(ctx, "duplicates", CheckOptions{Topic: "app_events", ID: "value.event_id"})
			return err
		}},
		{"sql", func() error {
			rows, err := e.Query(ctx, `SELECT * FROM "app_events$all"`)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
			}
			return rows.Err()
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { damaged(c.name, c.run()) })
	}
	// DuckDB names the file in some messages: the name is kept, relative
	// to the folder.
	err = damagedErr(errors.New(`Invalid Input Error: Failed to read file "`+dir+`/topic=app_events/partition=0/x.parquet": ZSTD Decompression failure`), "check gaps on app_events", dir)
	var de *DamagedError
	if !errors.As(err, &de) || de.File != "topic=app_events/partition=0/x.parquet" || strings.Contains(err.Error(), dir) {
		t.Fatalf("%#v: %v", de, err)
	}
	// A footer whose thrift DuckDB cannot decode (a varint run on).
	if err := damagedErr(errors.New(`Invalid Error: Variable-length int over 10 bytes.`), "", dir); !errors.Is(err, ErrDamagedData) {
		t.Fatalf("a footer's bad varint: %v", err)
	}
}

// TestFooterPastItsBoundIsNotRead: the footer length at a data file's end
// is the file's own word; one past maxFooterBytes is refused before the
// footer is decoded (read whole into memory), never read.
func TestFooterPastItsBoundIsNotRead(t *testing.T) {
	dir := damagedTeaShop(t)
	name := filepath.Base(dataFile(t, dir, 0))
	tp := catalog.TopicPartition{Topic: "app_events", Partition: 0}
	if err := checkDataFile(dir, tp, name, true); err != nil {
		t.Fatalf("a sound file: %v", err)
	}
	defer func(b int64) { catalog.MaxFooterBytes = b }(catalog.MaxFooterBytes)
	catalog.MaxFooterBytes = 64 // below this file's footer
	err := checkDataFile(dir, tp, name, true)
	if !errors.Is(err, catalog.ErrBadDataFile) || !strings.Contains(err.Error(), "past the 64 a data file's may take") {
		t.Fatalf("footer past the bound: %v", err)
	}
	if err := checkDataFile(dir, tp, name, false); err != nil {
		t.Fatalf("ends only (the footer not decoded): %v", err)
	}
}

// TestFooterCacheSkipsOnlyWhatDecoded: an open decodes the footer of every
// data file once and keeps which decoded in the user's cache folder; the
// next open decodes only the files it has not seen, and a file rewritten
// in place since (its footer damaged) is decoded again and costs its
// partition.
func TestFooterCacheSkipsOnlyWhatDecoded(t *testing.T) {
	was := footerCacheDir
	footerCacheDir = t.TempDir()
	defer func() { footerCacheDir = was }()
	dir := damagedTeaShop(t)
	open := func() []string {
		t.Helper()
		e, err := Open(t.Context(), dir, Options{})
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		defer e.Close()
		return e.Problems()
	}
	if p := open(); len(p) != 0 {
		t.Fatalf("a sound folder: %q", p)
	}
	fc := openFooterCache(dir)
	if len(fc.known) != 6 {
		t.Fatalf("%d files known to decode, want the 6 of app_events", len(fc.known))
	}
	if p := open(); len(p) != 0 {
		t.Fatalf("a sound folder, its footers known: %q", p)
	}
	rewrite(3, badFooter)(t, dir)
	p := open()
	if len(p) != 1 || !strings.Contains(p[0], "partition=3/") || !strings.Contains(p[0], "its footer cannot be read") {
		t.Fatalf("partition 3's footer damaged since the last open: %q", p)
	}
}

// oldHeaderRow is catalog.Row as files written before header keys that
// are not UTF-8 were stored as bytes (key_raw) hold it: such a key is in
// the string column "key".
type oldHeaderRow struct {
	Partition     int32  `parquet:"partition,delta"`
	Offset        int64  `parquet:"offset,delta"`
	Timestamp     int64  `parquet:"timestamp,timestamp(millisecond),delta"`
	TimestampType string `parquet:"timestamp_type,dict"`
	Key           []byte `parquet:"key,optional"`
	Value         []byte `parquet:"value,optional"`
	Headers       []struct {
		Key   string `parquet:"key"`
		Value []byte `parquet:"value,optional"`
	} `parquet:"headers,list"`
	LeaderEpoch   int32   `parquet:"leader_epoch,delta"`
	ProducerID    int64   `parquet:"producer_id,delta"`
	ProducerEpoch int32   `parquet:"producer_epoch,delta"`
	Transactional bool    `parquet:"is_transactional"`
	Control       bool    `parquet:"is_control"`
	ControlType   *string `parquet:"control_type,optional,dict"`
	TxnState      *string `parquet:"txn_state,optional,dict"`
	SchemaID      *int32  `parquet:"schema_id,optional"`
}

// writeOldHeaderPartition writes rows as one file of the layout before
// key_raw, and its manifest.
func writeOldHeaderPartition(t *testing.T, d *catalog.Dir, topic string, p int32, rows []catalog.Row) {
	t.Helper()
	tp := catalog.TopicPartition{Topic: topic, Partition: p}
	fe, err := d.WriteDataFile(t.Context(), tp, rows, "s1")
	if err != nil {
		t.Fatal(err)
	}
	old := make([]oldHeaderRow, len(rows))
	for i, r := range rows {
		old[i] = oldHeaderRow{Partition: r.Partition, Offset: r.Offset, Timestamp: r.Timestamp, TimestampType: r.TimestampType, Key: r.Key, Value: r.Value}
		for _, h := range r.Headers {
			old[i].Headers = append(old[i].Headers, struct {
				Key   string `parquet:"key"`
				Value []byte `parquet:"value,optional"`
			}{h.Key, h.Value})
		}
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[oldHeaderRow](&buf)
	if _, err := w.Write(old); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.FilePath(tp, fe.Name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fe.Bytes, fe.RawHeaderKeys = int64(buf.Len()), 0
	m := &catalog.Manifest{Topic: topic, Partition: p, NextOffset: rows[len(rows)-1].Offset + 1, Files: []catalog.FileEntry{fe}}
	if err := d.WriteManifest(t.Context(), m); err != nil {
		t.Fatal(err)
	}
}

// TestHeaderKeyNotUTF8: Kafka keeps a record header key's bytes, and a
// client other than Java's may write any; the dump keeps them exactly.
// DuckDB refuses such a key in a string column: the error said "damaged
// data file" with the hint to remove the partition folder and dump it
// again, of a file catalog verify finds intact (whose records Kafka may no
// longer have). Files are now written with such a key as bytes (key_raw):
// the topic reads, the key NULL and its bytes in key_raw, beside a file of
// the layout before whose keys are all UTF-8. A file of that layout
// holding such a key still cannot be read whole: the error says what it
// may be, and how to read the topic: without the header keys.
func TestHeaderKeyNotUTF8(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	bad := string([]byte{0xff, 0xc3, 0x28})
	rows := []catalog.Row{
		{Partition: 0, Offset: 0, Timestamp: 1, TimestampType: catalog.TimestampCreate, Key: []byte("a"), Value: []byte("1"), Headers: []catalog.Header{{Key: "ok", Value: []byte("x")}}},
		{Partition: 0, Offset: 1, Timestamp: 2, TimestampType: catalog.TimestampCreate, Key: []byte("b"), Value: []byte("2"), Headers: []catalog.Header{{Key: bad, Value: []byte{0xff}}}},
	}
	// Partition 0 (the first file read) of the layout before, its keys
	// UTF-8; partition 1 of today's, one key not.
	writeOldHeaderPartition(t, d, "hdr", 0, rows[:1])
	rows1 := slices.Clone(rows)
	for i := range rows1 {
		rows1[i].Partition = 1
	}
	writePartition(t, d, "hdr", 1, "s1", 2, rows1)
	// A topic whose one file is of the layout before and holds such a key.
	writeOldHeaderPartition(t, d, "oldhdr", 0, rows)
	ctx := t.Context()
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	query := func(q string) (out []string, err error) {
		rs, err := e.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		defer rs.Close()
		for rs.Next() {
			var s sql.NullString
			if err := rs.Scan(&s); err != nil {
				return nil, err
			}
			out = append(out, s.String)
		}
		return out, rs.Err()
	}
	got, err := query(`SELECT format('{}/{}: {} {} {}', "partition", "offset", coalesce(h."key", 'NULL'), hex(h.key_raw), hex(h."value"))
  FROM (SELECT "partition", "offset", unnest(headers) AS h FROM hdr) ORDER BY ALL`)
	want := []string{"0/0: ok 6F6B 78", "1/0: ok 6F6B 78", "1/1: NULL FFC328 FF"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("headers of hdr: %q, %v; want %q", got, err, want)
	}
	if got, err := query(`SELECT typeof(headers) FROM hdr LIMIT 1`); err != nil || got[0] != `STRUCT("key" VARCHAR, key_raw BLOB, "value" BLOB)[]` {
		t.Fatalf("headers' type: %q, %v", got, err)
	}

	_, err = query(`SELECT headers FROM oldhdr`)
	code, hint := exit.Of(err)
	if err == nil || code != exit.BadFolder || !strings.Contains(err.Error(), "header key") ||
		!strings.Contains(hint, "EXCLUDE (headers)") || !strings.Contains(hint, "if it finds every file intact") {
		t.Fatalf("a header key not UTF-8: exit %d, hint %q: %v", code, hint, err)
	}
	// The way the hint gives reads every record.
	if n, err := query(`SELECT "offset"::VARCHAR FROM (SELECT * EXCLUDE (headers) FROM oldhdr)`); err != nil || len(n) != 2 {
		t.Fatalf("SELECT * EXCLUDE (headers): %d rows, %v", len(n), err)
	}
	// And the key is the exact bytes, for restore, in either layout.
	for _, topic := range []string{"oldhdr", "hdr"} {
		ms, err := d.Manifests(ctx, topic)
		if err != nil {
			t.Fatal(err)
		}
		m := ms[len(ms)-1]
		got, err := catalog.ReadDataFile(d.FilePath(m.TP(), m.Files[0].Name))
		if err != nil || len(got) != 2 || got[1].Headers[0].Key != bad {
			t.Fatalf("%s: stored header key: %v, %v", topic, got, err)
		}
		if want := int64(map[string]int{"hdr": 1}[topic]); m.Files[0].RawHeaderKeys != want {
			t.Fatalf("%s: raw_header_keys %d, want %d", topic, m.Files[0].RawHeaderKeys, want)
		}
	}
}

// TestRawHeaderKeysOfAFileWithoutKeyRaw: a manifest that counts header
// keys stored as bytes of a file without the key_raw column (edited, or
// the file put back from before) failed every view of the topic: "create
// views of hdr: Binder Error: Could not find key "key_raw" in struct".
// The partition is now left out and named, as a damaged file's is; the
// others read.
func TestRawHeaderKeysOfAFileWithoutKeyRaw(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows := func(p int32) []catalog.Row {
		return []catalog.Row{{Partition: p, Offset: 0, Timestamp: 1, TimestampType: catalog.TimestampCreate, Key: []byte("a"), Value: []byte("1"),
			Headers: []catalog.Header{{Key: "ok", Value: []byte("x")}}}}
	}
	writeOldHeaderPartition(t, d, "hdr", 0, rows(0))
	writeOldHeaderPartition(t, d, "hdr", 1, rows(1))
	m, err := d.ReadManifest(t.Context(), catalog.TopicPartition{Topic: "hdr", Partition: 1})
	if err != nil {
		t.Fatal(err)
	}
	m.Files[0].RawHeaderKeys = 3
	if err := d.WriteManifest(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := query1(t, e, `SELECT string_agg("partition"::VARCHAR || ':' || h."key", ',') FROM (SELECT "partition", unnest(headers) AS h FROM hdr)`); got != "0:ok" {
		t.Fatalf("headers: %q", got)
	}
	p := strings.Join(e.Problems(), "\n")
	if !strings.Contains(p, "partition=1/") || !strings.Contains(p, "counts 3 header keys stored as bytes, and the file has no column headers.key_raw") {
		t.Fatalf("problems: %q", p)
	}
}
