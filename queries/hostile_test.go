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

	"github.com/topicsnap/topicsnap/queries/hostile"
)

// expressionOptions sets each expression option of a check to v, with
// what the check needs besides to reach it.
var expressionOptions = []struct {
	check string
	set   func(o *CheckOptions, v string)
}{
	{"duplicates", func(o *CheckOptions, v string) { o.ID = v }},
	{"duplicates", func(o *CheckOptions, v string) { o.By = v }},
	{"skew", func(o *CheckOptions, v string) { o.WhatIfKey = v }},
	{"order", func(o *CheckOptions, v string) { o.Time = v }},
	{"freshness", func(o *CheckOptions, v string) { o.EventTime = v }},
	{"missing", func(o *CheckOptions, v string) {
		o.Match, o.AgainstTopic, o.AgainstMatch = v, "shop.events-v2", "value.event_id"
	}},
	{"missing", func(o *CheckOptions, v string) {
		o.Match, o.Where, o.AgainstTopic, o.AgainstMatch = "value.event_id", v, "shop.events-v2", "value.event_id"
	}},
	{"missing", func(o *CheckOptions, v string) {
		o.Match, o.AgainstTopic, o.AgainstMatch = "value.event_id", "shop.events-v2", v
	}},
	{"missing", func(o *CheckOptions, v string) {
		o.Match, o.AgainstTopic, o.AgainstMatch, o.AgainstWhere = "value.event_id", "shop.events-v2", "value.event_id", v
	}},
	{"missing", func(o *CheckOptions, v string) {
		o.Match, o.AgainstTopic, o.AgainstMatch, o.By = "value.event_id", "shop.events-v2", "value.event_id", v
	}},
}

// TestHostileCheckOptions: every hostile text in every expression option,
// on a plain engine (the CLI's) and a locked one (the server's), is refused
// as an option error, and leaves the folder byte for byte as it was, the
// folder's parent without a new file, and the engine's views as they were.
func TestHostileCheckOptions(t *testing.T) {
	parent := t.TempDir()
	dir := fixtureAt(t, filepath.Join(parent, "snap"))
	ctx := context.Background()
	before, parentBefore := hostile.FolderHash(t, dir), listDir(parent)
	for _, locked := range []bool{false, true} {
		e, err := Open(ctx, dir, Options{Locked: locked, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		views := objects(t, e)
		for _, attack := range hostile.Expressions(dir) {
			for i, opt := range expressionOptions {
				o := CheckOptions{Topic: "shop.events-v2"}
				opt.set(&o, attack)
				_, err := e.RunCheck(ctx, opt.check, o)
				var oe *OptionError
				var se *SQLError
				if !errors.As(err, &oe) && !errors.As(err, &se) {
					t.Errorf("locked=%v %s option #%d %q: want it refused, got %v", locked, opt.check, i, attack, err)
				}
			}
		}
		// The report's own payload is answered (as the constant 1): it
		// must change nothing either.
		payload := "1 /*\nCOPY (SELECT 42 AS x) TO '" + dir + "/pwned.csv'; --'*/"
		for _, opt := range expressionOptions {
			o := CheckOptions{Topic: "shop.events-v2"}
			opt.set(&o, payload)
			e.RunCheck(ctx, opt.check, o)
		}
		if got := objects(t, e); got != views {
			t.Errorf("locked=%v: the engine's tables changed: %s -> %s", locked, views, got)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if after := hostile.FolderHash(t, dir); after != before {
		t.Errorf("the folder changed:\n%s\n---\n%s", before, after)
	}
	if after := listDir(parent); after != parentBefore {
		t.Errorf("something was written beside the folder:\n%s", after)
	}
}

// TestExpressionsAreEmbeddedAsDuckDBRendersThem: what reaches a check's SQL
// is DuckDB's rendering of the parsed expression: no comment, the same
// meaning, exact constants.
func TestExpressionsAreEmbeddedAsDuckDBRendersThem(t *testing.T) {
	e, err := Open(context.Background(), fixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range []struct{ in, want string }{
		{"value.event_id", `"value".event_id`},
		{"value.event_id /* a comment */", `"value".event_id`},
		{"key -- a comment", `"key"`},
		{"'a--b' || key", `('a--b' || "key")`},
		{"$$it's$$", `'it''s'`},
		{`"offset" = 9007199254740993`, `("offset" = 9007199254740993)`},
		{"value.order.total * 2", `("value"."order".total * 2)`},
		{"1 /*\nCOPY (SELECT 42 AS x) TO 'pwned.csv'; --'*/", `1`},
	} {
		got, err := e.Expr(context.Background(), "id", c.in, "shop.events-v2")
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("%q rendered as %q, want %q", c.in, got, c.want)
		}
	}
}

// TestCheckAnswersAreUnchangedByRendering: a check with an expression gives
// the answer it gave when the text was embedded as typed.
func TestCheckAnswersAreUnchangedByRendering(t *testing.T) {
	e, err := Open(context.Background(), fixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(context.Background(), "duplicates", CheckOptions{Topic: "shop.events-v2", ID: "value.event_name -- the kind of event"})
	if err != nil {
		t.Fatal(err)
	}
	// 10 data records: 9 with event_name view_menu, one not JSON (no id).
	if got := fmt.Sprint(r.Summary.Get("distinct_ids"), " ", r.Summary.Get("extra_copies"), " ", r.Summary.Get("records_without_id")); got != "1 8 1" {
		t.Errorf("distinct ids, extra copies, records without id = %s, want 1 8 1", got)
	}
}

// deepJSON is an object nested 20,000 levels: json_structure of it kills
// the process.
var deepJSON = strings.Repeat(`{"a":`, 20_000) + "1" + strings.Repeat("}", 20_000)

// TestLockedRefusesDisclosure: a locked engine's SQL reaches the topic
// views, the catalog tables and its own CTEs only.
func TestLockedRefusesDisclosure(t *testing.T) {
	dir := fixture(t)
	e, err := Open(context.Background(), dir, Options{Locked: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	refused := []string{
		`SELECT current_setting('allowed_directories')`,
		`SELECT current_setting('temp_directory')`,
		`SELECT * FROM pg_catalog.pg_settings`,
		`SELECT * FROM pg_settings`,
		`SELECT sql FROM information_schema.views`,
		`SELECT * FROM information_schema.tables`,
		`SELECT * FROM duckdb_databases`,
		`SELECT * FROM duckdb_views`,
		`SELECT * FROM duckdb_settings()`,
		`SELECT * FROM sqlite_master`,
		`SELECT * FROM system.main.duckdb_views`,
		`SELECT * FROM temp.main.x`,
		`SELECT * FROM 'topicsnap.json'`,
		`SELECT * FROM '` + dir + `/topicsnap.json'`,
		`SELECT * FROM "` + dir + `/snapshots/s1.json"`,
		`WITH duckdb_settings AS (SELECT 1) SELECT * FROM duckdb_views`,
		`SELECT * FROM files, (WITH duckdb_views AS (SELECT 1) SELECT * FROM duckdb_views) x, duckdb_views`,
		`SELECT * FROM files, (WITH pg_settings AS (SELECT 1) SELECT * FROM pg_settings) x, pg_settings`,
		`WITH "x.csv" AS (SELECT 1) SELECT * FROM "x.csv"`,
		`SELECT pg_get_viewdef('shop.events-v2')`,
		`SELECT getvariable('x')`,
		`SELECT write_log('x')`,
		`SELECT * FROM query('SELECT 1')`,
		`SELECT * FROM json_execute_serialized_sql('{}')`,
		`SHOW DATABASES`,
		`SHOW ALL TABLES`,
		`SELECT * FROM read_text('` + dir + `/topicsnap.json')`,
		// Off the allow-list: each of these kills or swamps the process on
		// a deep value (a literal needs no data: DuckDB folds it at bind).
		`SELECT json_structure('` + deepJSON + `')`,
		`SELECT json_group_structure(value_raw::VARCHAR::JSON) FROM "shop.events-v2"`,
		`SELECT json_group_structure('[1]'::JSON) OVER () FROM "shop.events-v2"`,
		`SELECT length(json_pretty('[[[1]]]'))`,
		`SELECT json_merge_patch('{}', '{}')`,
		`SELECT JSON_STRUCTURE('{}')`,
		`SELECT json_serialize_plan('SELECT 1')`,
		`SELECT nextval('s')`,
		`SELECT 1 FROM "shop.events-v2" WHERE sleep_ms(10) IS NULL`,
	}
	for _, q := range refused {
		rows, err := e.Query(ctx, q)
		if err == nil {
			rows.Close()
			t.Errorf("not refused: %s", q)
			continue
		}
		if !errors.Is(err, ErrRefused) {
			t.Errorf("%s: refused with the wrong error: %v", q, err)
		}
	}
	allowed := []string{
		`SELECT count(*) FROM "shop.events-v2"`,
		`SELECT count(*) FROM "shop.events-v2$all"`,
		`SELECT count(*) FROM main."shop.events-v2"`,
		`WITH f AS (SELECT * FROM files) SELECT count(*) FROM f`,
		`WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT count(*) FROM r`,
		`SELECT count(*) FROM range(10)`,
		`SELECT count(*) FROM (SELECT unnest([1, 2, 3]))`,
		`SELECT count(*) FROM snapshots JOIN partitions USING (snapshot_id)`,
		`DESCRIBE "shop.events-v2"`,
		`SHOW TABLES`,
	}
	for _, q := range allowed {
		rows, err := e.Query(ctx, q)
		if err != nil {
			t.Errorf("refused: %s: %v", q, err)
			continue
		}
		rows.Close()
	}
}

// TestPrivateTempFolder: each engine spills into a folder of its own, 0700,
// removed when it closes.
func TestPrivateTempFolder(t *testing.T) {
	base := t.TempDir()
	ctx := context.Background()
	dir := fixture(t)
	a, err := Open(ctx, dir, Options{TempDir: base})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, dir, Options{TempDir: base, Locked: true})
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(base)
	if len(entries) != 2 {
		t.Fatalf("want a temp folder per engine, found %d", len(entries))
	}
	for _, en := range entries {
		info, _ := en.Info()
		if info.Mode().Perm() != 0o700 {
			t.Errorf("%s is %v, want 0700", en.Name(), info.Mode().Perm())
		}
	}
	var tmp string
	if err := a.DB().QueryRowContext(ctx, "SELECT current_setting('temp_directory')").Scan(&tmp); err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(tmp) != base || !strings.HasPrefix(filepath.Base(tmp), "topicsnap-duckdb-") {
		t.Errorf("temp_directory is %s", tmp)
	}
	a.Close()
	b.Close()
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Errorf("temp folders left after close: %v", entries)
	}
}

// TestOptionBounds: numeric options out of bounds are option errors on
// every surface (this is the one place that judges them).
func TestOptionBounds(t *testing.T) {
	e, err := Open(context.Background(), fixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range []struct {
		check string
		o     CheckOptions
		opt   string
	}{
		{"skew", CheckOptions{WhatIfKey: "key", WhatIfPartitions: MaxWhatIfPartitions + 1}, "what_if_partitions"},
		{"skew", CheckOptions{WhatIfKey: "key", WhatIfPartitions: -1}, "what_if_partitions"},
		{"skew", CheckOptions{Hot: -1}, "hot"},
		{"freshness", CheckOptions{Silence: -5}, "silence"},
		{"freshness", CheckOptions{Late: -1}, "late"},
		{"gaps", CheckOptions{Limit: MaxLimit + 1}, "limit"},
	} {
		c.o.Topic = "shop.events-v2"
		_, err := e.RunCheck(context.Background(), c.check, c.o)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != c.opt {
			t.Errorf("%s %+v: want an error on option %s, got %v", c.check, c.o, c.opt, err)
		}
	}
}
