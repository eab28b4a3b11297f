package queries

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

func sp(s string) *string { return &s }

// fixture writes a small snapshot folder by code: topic "shop.events-v2"
// with JSON values (one not JSON), a committed and an aborted transaction,
// and a lost range.
func fixture(t testing.TB) string { return fixtureAt(t, t.TempDir()) }

// fixtureAt writes the fixture into dir.
func fixtureAt(t testing.TB, dir string) string {
	t.Helper()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	topic := "shop.events-v2"
	for p := int32(0); p < 2; p++ {
		tp := catalog.TopicPartition{Topic: topic, Partition: p}
		var rows []catalog.Row
		for i := int64(0); i < 5; i++ {
			v := fmt.Sprintf(`{"event_id":"e%d-%d","event_name":"view_menu","order":{"total":%d}}`, p, i, i*10)
			rows = append(rows, catalog.Row{Partition: p, Offset: i, Timestamp: 1700000000000 + i*1000, TimestampType: catalog.TimestampCreate,
				Key: []byte(fmt.Sprintf("u%d", p)), Value: []byte(v)})
		}
		if p == 1 {
			rows[4].Value = []byte("not json")
			rows[3].Key = []byte{0xff}
			rows = append(rows,
				catalog.Row{Partition: 1, Offset: 5, Timestamp: 1700000010000, Transactional: true, TxnState: sp(catalog.TxnAborted), ProducerID: 9, Value: []byte(`{"event_id":"x"}`)},
				catalog.Row{Partition: 1, Offset: 6, Timestamp: 1700000010000, Transactional: true, Control: true, ControlType: sp(catalog.ControlAbort), TxnState: sp(catalog.TxnAborted), ProducerID: 9},
			)
		}
		fe, err := d.WriteDataFile(t.Context(), tp, rows, "s1")
		if err != nil {
			t.Fatal(err)
		}
		m := &catalog.Manifest{Topic: topic, Partition: p, NextOffset: fe.LastOffset + 1, Files: []catalog.FileEntry{fe}}
		if p == 0 {
			m.Lost = []catalog.LostRange{{Kind: catalog.LostBetween, From: 100, To: 109, DetectedAt: time.Now()}}
		}
		if err := d.WriteManifest(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s1", Topic: topic, AsOf: time.Now(), PartitionCount: 2, ReplicationFactor: 1,
		Configs:    map[string]string{"cleanup.policy": "delete"},
		Partitions: []catalog.PartitionState{{Partition: 0, HighWatermark: 5, Replicas: []int32{1}, ISR: []int32{1}}, {Partition: 1, HighWatermark: 7}},
		Groups: []catalog.GroupState{{Group: "g", State: "Stable", Offsets: []catalog.GroupOffset{{Partition: 0, Offset: 3}},
			Members: []catalog.GroupMember{{MemberID: "m1", ClientID: "watcher-1", Assigned: []int32{0, 1}}}}},
	}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writePartition commits rows (offsets in order, none if empty) as one data
// file of topic's partition p, and a manifest listing it whose next offset
// is next.
func writePartition(t testing.TB, d *catalog.Dir, topic string, p int32, snapshot string, next int64, rows []catalog.Row) {
	t.Helper()
	m := &catalog.Manifest{Topic: topic, Partition: p, NextOffset: next}
	if len(rows) > 0 {
		fe, err := d.WriteDataFile(t.Context(), catalog.TopicPartition{Topic: topic, Partition: p}, rows, snapshot)
		if err != nil {
			t.Fatal(err)
		}
		m.Files = []catalog.FileEntry{fe}
	}
	if err := d.WriteManifest(t.Context(), m); err != nil {
		t.Fatal(err)
	}
}

func query1(t *testing.T, e *Engine, q string) string {
	t.Helper()
	var s string
	if err := e.DB().QueryRowContext(context.Background(), q).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s
}

func TestViewsOverCatalog(t *testing.T) {
	e, err := Open(context.Background(), fixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cases := []struct{ q, want string }{
		{`SELECT count(*)::VARCHAR FROM "shop.events-v2"`, "10"},
		{`SELECT count(*)::VARCHAR FROM "shop.events-v2$all"`, "12"},
		{`SELECT value.order.total::VARCHAR FROM "shop.events-v2" WHERE "partition"=0 AND "offset"=2`, "20"},
		{`SELECT (value IS NULL)::VARCHAR || ':' || decode(value_raw) FROM "shop.events-v2" WHERE "partition"=1 AND "offset"=4`, "true:not json"},
		{`SELECT coalesce("key", 'NULL') || ':' || hex(key_raw) FROM "shop.events-v2" WHERE "partition"=1 AND "offset"=3`, "NULL:FF"},
		{`SELECT string_agg(kind || ' ' || from_offset || '-' || to_offset, ';') FROM lost_ranges`, "expired-between-snapshots 100-109"},
		{`SELECT client_id || ' ' || assigned_partitions::VARCHAR FROM group_members`, "watcher-1 [0, 1]"},
		{`SELECT value FROM topic_configs WHERE name = 'cleanup.policy'`, "delete"},
		{`SELECT count(*)::VARCHAR FROM files`, "2"},
		{`SELECT kafka_partition('u000001', 6)::VARCHAR`, fmt.Sprint(catalog.JavaPartition([]byte("u000001"), 6))},
		{`SELECT murmur2('21'::BLOB)::VARCHAR`, "-973932308"},
		{`SELECT kafka_partition_crc32('abc', 7)::VARCHAR`, fmt.Sprint(catalog.CRC32Partition([]byte("abc"), 7))},
		{`SELECT typeof("timestamp") FROM "shop.events-v2" LIMIT 1`, "TIMESTAMP WITH TIME ZONE"},
	}
	for _, c := range cases {
		if got := query1(t, e, c.q); got != c.want {
			t.Errorf("%s\n got %q want %q", c.q, got, c.want)
		}
	}
}

func TestEmptyFolderOpensToTypedTables(t *testing.T) {
	start := time.Now()
	e, err := Open(context.Background(), t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := query1(t, e, `SELECT count(*)::VARCHAR FROM lost_ranges`); got != "0" {
		t.Fatal(got)
	}
	if got := query1(t, e, `SELECT count(*)::VARCHAR FROM group_members`); got != "0" {
		t.Fatal(got)
	}
	t.Logf("opened in %s", time.Since(start))
}

func TestLockedRefusesEverythingButOneSelect(t *testing.T) {
	dir := fixture(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.csv"), []byte("a\n1\n"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "escape"))
	e, err := Open(context.Background(), dir, Options{Locked: true, Timeout: time.Second, MemoryLimit: "512MB", Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	refused := []string{
		`COPY (SELECT 1) TO '` + dir + `/x.csv'`,
		`ATTACH '` + dir + `/x.db' AS x`,
		`INSTALL httpfs`,
		`LOAD httpfs`,
		`SELECT * FROM read_csv('/etc/passwd')`,
		`SELECT * FROM glob('/**')`,
		`SELECT * FROM read_csv('` + dir + `/../` + filepath.Base(outside) + `/secret.csv')`,
		`SELECT * FROM read_csv('` + dir + `/escape/secret.csv')`,
		`SET threads = 8`,
		`RESET threads`,
		`CREATE TABLE t AS SELECT 1`,
		`PRAGMA version`,
		`SELECT 1; SELECT 2`,
		`SELECT * FROM duckdb_settings()`,
	}
	for _, q := range refused {
		_, err := e.Query(ctx, q)
		if err == nil {
			t.Errorf("not refused: %s", q)
			continue
		}
		if !errors.Is(err, ErrRefused) {
			t.Errorf("%s: refused with the wrong error: %v", q, err)
		}
	}
	rows, err := e.Query(ctx, `SELECT count(*) FROM "shop.events-v2"`)
	if err != nil {
		t.Fatalf("plain select refused: %v", err)
	}
	rows.Close()
	_, err = e.Query(ctx, `SELECT count(*) FROM range(100000000000) a`)
	if err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Errorf("long query: %v", err)
	}
}

func TestDamagedTopicDoesNotHideOthers(t *testing.T) {
	dir := fixture(t)
	d, _ := catalog.Open(dir)
	// A second topic whose manifest is not JSON.
	bad := catalog.TopicPartition{Topic: "broken_topic", Partition: 0}
	os.MkdirAll(d.PartitionDir(bad), 0o755)
	os.WriteFile(filepath.Join(d.PartitionDir(bad), "manifest.json"), []byte("{not json"), 0o644)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatalf("one damaged topic stopped the engine: %v", err)
	}
	defer e.Close()
	if got := query1(t, e, `SELECT count(*)::VARCHAR FROM "shop.events-v2"`); got != "10" {
		t.Fatalf("other topic: %s", got)
	}
	probs := e.Problems()
	if len(probs) != 1 || !strings.Contains(probs[0], "broken_topic") || !strings.Contains(probs[0], "manifest.json") {
		t.Fatalf("problems: %v", probs)
	}
	files, vprobs, _ := d.Verify(t.Context())
	if files != 2 || len(vprobs) != 1 || !strings.Contains(vprobs[0].Path, "broken_topic") {
		t.Fatalf("verify: %d files, %v", files, vprobs)
	}
}

func TestVerifyNamesMissingAndForeignFiles(t *testing.T) {
	dir := fixture(t)
	d, _ := catalog.Open(dir)
	ms, _ := d.Manifests(t.Context(), "shop.events-v2")
	p0 := d.FilePath(ms[0].TP(), ms[0].Files[0].Name)
	p1 := d.FilePath(ms[1].TP(), ms[1].Files[0].Name)
	os.Remove(p0)
	os.WriteFile(p1, []byte("PAR1 this is not our parquet PAR1"), 0o644)
	_, probs, err := d.Verify(t.Context())
	if err != nil || len(probs) != 2 {
		t.Fatalf("verify: %v %v", probs, err)
	}
	if !strings.Contains(probs[0].Detail+probs[1].Detail, "missing") || probs[0].Fix == "" {
		t.Fatalf("problems do not name the fault and the fix: %+v", probs)
	}
}

// A transaction open when its first file was written, aborted in a later
// file: the topic view leaves its records out, "$all" flags them aborted.
func TestOpenTransactionsResolvedAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	d, _ := catalog.Create(dir)
	tp := catalog.TopicPartition{Topic: "tx", Partition: 0}
	f1 := []catalog.Row{
		{Offset: 0, Value: []byte("plain")},
		{Offset: 1, Transactional: true, ProducerID: 5, TxnState: sp(catalog.TxnOpen), Value: []byte("will abort")},
		{Offset: 2, Transactional: true, ProducerID: 6, TxnState: sp(catalog.TxnOpen), Value: []byte("will commit")},
		{Offset: 3, Transactional: true, ProducerID: 7, TxnState: sp(catalog.TxnOpen), Value: []byte("still open")},
	}
	f2 := []catalog.Row{
		{Offset: 4, Transactional: true, Control: true, ProducerID: 5, ControlType: sp(catalog.ControlAbort), TxnState: sp(catalog.TxnAborted)},
		{Offset: 5, Transactional: true, Control: true, ProducerID: 6, ControlType: sp(catalog.ControlCommit), TxnState: sp(catalog.TxnCommitted)},
		{Offset: 6, Transactional: true, ProducerID: 5, TxnState: sp(catalog.TxnCommitted), Value: []byte("next txn of 5")},
		{Offset: 7, Transactional: true, Control: true, ProducerID: 5, ControlType: sp(catalog.ControlCommit), TxnState: sp(catalog.TxnCommitted)},
	}
	m := &catalog.Manifest{Topic: "tx", NextOffset: 8}
	for _, rows := range [][]catalog.Row{f1, f2} {
		fe, err := d.WriteDataFile(t.Context(), tp, rows, "s")
		if err != nil {
			t.Fatal(err)
		}
		m.Files = append(m.Files, fe)
	}
	if m.Files[0].OpenTxnRecords != 3 {
		t.Fatalf("open txn records %d", m.Files[0].OpenTxnRecords)
	}
	d.WriteManifest(t.Context(), m)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := query1(t, e, `SELECT string_agg(decode(value_raw), ',' ORDER BY "offset") FROM tx`); got != "plain,will commit,still open,next txn of 5" {
		t.Fatalf("topic view: %s", got)
	}
	if got := query1(t, e, `SELECT string_agg("offset" || ':' || coalesce(txn_state, '-'), ',' ORDER BY "offset") FROM "tx$all"`); got != "0:-,1:aborted,2:committed,3:open,4:aborted,5:committed,6:committed,7:committed" {
		t.Fatalf("$all: %s", got)
	}
}

// TestDamagedPartitionHidesOnlyItself: one partition's damaged manifest
// leaves the topic's other partitions queryable; the damaged one is named
// in Problems, and every check on the topic says it could not judge it.
func TestDamagedPartitionHidesOnlyItself(t *testing.T) {
	dir := fixture(t)
	d, _ := catalog.Open(dir)
	tp := catalog.TopicPartition{Topic: "shop.events-v2", Partition: 1}
	if err := os.WriteFile(filepath.Join(d.PartitionDir(tp), "manifest.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := query1(t, e, `SELECT count(*)::VARCHAR FROM "shop.events-v2"`); got != "5" {
		t.Fatalf("partition 0 reads %s records, want 5", got)
	}
	probs := e.Problems()
	if len(probs) != 1 || !strings.Contains(probs[0], "partition 1") {
		t.Fatalf("problems: %v", probs)
	}
	for _, name := range []string{"gaps", "duplicates", "skew", "keys", "order", "freshness"} {
		r, err := e.RunCheck(context.Background(), name, CheckOptions{Topic: "shop.events-v2"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Status == StatusOK || !strings.Contains(r.Message, "not judged") {
			t.Errorf("%s over a damaged partition: %s: %s", name, r.Status, r.Message)
		}
	}
}

// A locked engine reads one CSV file inside the snapshot folder (a shipped
// notebook joins orders.csv), named by a constant, and nothing else: no
// file outside, through .. or a symbolic link, no pattern, no option that
// names the file.
func TestLockedReadsACSVOfTheFolderOnly(t *testing.T) {
	dir := fixture(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.csv"), []byte("a\n1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "orders.csv"), []byte("order_id,platform\nA1,ios\nA2,web\n"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.csv"), filepath.Join(dir, "link.csv"))
	os.Mkdir(filepath.Join(dir, "sub.csv"), 0o755)
	e, err := Open(context.Background(), dir, Options{Locked: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	lit := "'" + dir + "'"
	cases := []struct {
		q  string
		ok bool
	}{
		{`SELECT count(*)::VARCHAR FROM read_csv(` + lit + ` || '/orders.csv', header = true, all_varchar = true)`, true},
		{`SELECT count(*)::VARCHAR FROM read_csv('` + dir + `/orders.csv')`, true},
		{`SELECT count(*)::VARCHAR FROM read_csv_auto(` + lit + ` || '/' || 'orders.csv', delim = ',')`, true},
		{`SELECT count(*)::VARCHAR FROM read_csv('orders.csv')`, false},
		{`SELECT count(*)::VARCHAR FROM read_csv(` + lit + ` || '/*.csv')`, false},
		{`SELECT count(*)::VARCHAR FROM read_csv(` + lit + ` || '/link.csv')`, false},
		{`SELECT count(*)::VARCHAR FROM read_csv(` + lit + ` || '/sub.csv')`, false},
		{`SELECT count(*)::VARCHAR FROM read_csv(` + lit + ` || '/../` + filepath.Base(outside) + `/secret.csv')`, false},
		{`SELECT count(*)::VARCHAR FROM read_csv(` + lit + ` || '/orders.csv', filename = true)`, false},
		{`SELECT count(*)::VARCHAR FROM read_csv(` + lit + ` || '/orders.csv', header = (SELECT true))`, false},
		{`SELECT count(*)::VARCHAR FROM read_csv(concat(` + lit + `, '/orders.csv'))`, false},
		{`SELECT count(*)::VARCHAR FROM read_csv([` + lit + ` || '/orders.csv'])`, false},
		{`SELECT count(*)::VARCHAR FROM read_csv((SELECT file FROM files LIMIT 1))`, false},
		{`SELECT count(*)::VARCHAR FROM read_parquet(` + lit + ` || '/orders.csv')`, false},
		// The catalog's own files are not CSV data: the folder's JSON (broker
		// addresses, configs) stays out of reach.
		{`SELECT count(*)::VARCHAR FROM read_csv(` + lit + ` || '/topicsnap.json')`, false},
		{`SELECT count(*)::VARCHAR FROM read_csv(` + lit + ` || '/snapshots/s1.json')`, false},
	}
	for _, c := range cases {
		rows, err := e.Query(ctx, c.q)
		if c.ok {
			if err != nil {
				t.Errorf("%s: %v", c.q, err)
				continue
			}
			var n string
			if !rows.Next() || rows.Scan(&n) != nil || n != "2" {
				t.Errorf("%s: %q", c.q, n)
			}
			rows.Close()
			continue
		}
		if err == nil {
			rows.Close()
			t.Errorf("not refused: %s", c.q)
		} else if !errors.Is(err, ErrRefused) {
			t.Errorf("%s: refused with the wrong error: %v", c.q, err)
		}
	}
}
