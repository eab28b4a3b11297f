package queries

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/mattn/go-runewidth"
)

// writeSQL runs q on a bare DuckDB and writes its result with o.
func writeSQL(t *testing.T, q string, o WriteOptions) string {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if _, err := WriteRows(context.Background(), &b, rows, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A table fits the width it is given as the DuckDB CLI's does: columns
// dropped from the middle, a … column where they were, and the footer
// saying how many are shown; no line is longer than the width.
func TestTableFitsTheWidth(t *testing.T) {
	var cols []string
	for i := range 16 {
		cols = append(cols, fmt.Sprintf("'value-%02d-abcdefghij' AS column_%02d", i, i))
	}
	q := "SELECT " + strings.Join(cols, ", ") + " FROM range(3)"
	cases := []struct {
		width int
		shown int // 16: all, no … column
	}{
		{0, 16},
		{400, 16},
		{160, 7},
		{80, 3},
		{40, 1},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.width), func(t *testing.T) {
			out := writeSQL(t, q, WriteOptions{Format: "table", Width: c.width})
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			footer := lines[len(lines)-1]
			for _, l := range lines[:len(lines)-1] {
				if c.width > 0 && utf8.RuneCountInString(l) > c.width {
					t.Errorf("line of %d characters over %d: %q", utf8.RuneCountInString(l), c.width, l)
				}
			}
			header := lines[1]
			shown := strings.Count(header, "column_")
			if shown != c.shown {
				t.Errorf("%d columns shown, want %d:\n%s", shown, c.shown, out)
			}
			if c.shown < 16 {
				want := fmt.Sprintf("3 rows, 16 columns (%d shown)", c.shown)
				if footer != want || !strings.Contains(header, "│ … │") || !strings.Contains(header, "column_00") {
					t.Errorf("footer %q, want %q; header %q: want column_00 and a … column", footer, want, header)
				}
				if c.shown > 1 && !strings.Contains(header, "column_15") {
					t.Errorf("the last column is dropped before the middle ones: %q", header)
				}
			} else if footer != "3 rows" || strings.Contains(header, "…") {
				t.Errorf("nothing to drop, yet footer %q header %q", footer, header)
			}
			// Shown columns are not cut to a stub: the value fits whole.
			if !strings.Contains(lines[3], "value-00-abcdefghij") {
				t.Errorf("first column cut: %q", lines[3])
			}
		})
	}
}

// NULL and the empty string look different in the text formats that can
// show it; a BLOB inside a nested value (a record's header) is its text
// when it is UTF-8, \xHH escapes when not, in every text format; JSON keeps
// base64, which is exact.
func TestTextFormatsShowNullsAndHeaderText(t *testing.T) {
	q := `SELECT NULL::VARCHAR AS null_key, '' AS empty_key,
		[{'key': 'content-type', 'value': 'application/json'::BLOB}, {'key': 'raw', 'value': '\xFF\x00'::BLOB}] AS headers`
	cases := []struct {
		format string
		want   []string
		not    []string
	}{
		{"line", []string{" null_key = NULL\n", "empty_key = \n", "application/json", `\\xFF\\x00`}, []string{"YXBwbGljYXRpb24vanNvbg=="}},
		{"table", []string{"NULL", "application/json"}, []string{"YXBwbGljYXRpb24vanNvbg=="}},
		{"markdown", []string{"NULL", "application/json", `\\xFF\\x00`}, []string{"YXBwbGljYXRpb24vanNvbg=="}},
		{"csv", []string{"application/json"}, []string{"YXBwbGljYXRpb24vanNvbg=="}},
		{"json", []string{`"null_key":null`, `"empty_key":""`, "YXBwbGljYXRpb24vanNvbg==", "/wA="}, []string{"application/json"}},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			out := writeSQL(t, q, WriteOptions{Format: c.format, MaxCell: 200})
			for _, s := range c.want {
				if !strings.Contains(out, s) {
					t.Errorf("no %q in\n%s", s, out)
				}
			}
			for _, s := range c.not {
				if strings.Contains(out, s) {
					t.Errorf("%q in\n%s", s, out)
				}
			}
		})
	}
}

// DuckDB's parser error for an unquoted offset column hints at quoting
// it; LIMIT ... OFFSET n and other syntax errors get no such hint.
func TestOffsetHint(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t AS SELECT 1 AS "partition", 2 AS "offset"`); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		q    string
		hint bool
	}{
		{`SELECT offset FROM t`, true},
		{`SELECT "partition", offset FROM t WHERE offset > 1`, true},
		{`SELECT * FROM t ORDER BY offset`, true},
		{`SELECT offset FROM t LIMIT 1 OFFSET 1`, true},
		{`SELEC "offset" FROM t`, false},
		{`SELECT * FROM t LIMIT 1 OFFSET`, false},
		{`SELECT * FROM t LIMIT 1 OFFSET 1 x y`, false},
		// offset in a string, a dollar quote or a comment is not the column.
		{`SELEC 'offset' FROM t`, false},
		{`SELEC $$ offset $$ FROM t`, false},
		{"SELEC 1 -- the offset\nFROM t", false},
		{`SELEC /* offset */ 1`, false},
	}
	for _, c := range cases {
		t.Run(c.q, func(t *testing.T) {
			rows, err := db.QueryContext(ctx, c.q)
			if err == nil {
				rows.Close()
				t.Fatalf("%s: no error", c.q)
			}
			se, _ := CleanError(err).(*SQLError)
			if got := se.Fix == OffsetHint; got != c.hint {
				t.Fatalf("%s: %q gets hint %q", c.q, se.Msg, se.Fix)
			}
		})
	}
	// A statement nested past DuckDB's depth: its advice to run a SET is
	// dropped (no surface of topicsnap runs one), the limit itself said.
	deep := "SELECT " + strings.Repeat("abs(", 1100) + "1" + strings.Repeat(")", 1100)
	if rows, err := db.QueryContext(ctx, deep); err == nil {
		rows.Close()
		t.Fatal("a statement past the depth limit ran")
	} else if msg := CleanError(err).Error(); strings.Contains(msg, "SET") || !strings.Contains(msg, "depth") {
		t.Errorf("deep statement: %q, want the limit without a SET", msg)
	}
	for _, q := range []string{`SELECT "offset" FROM t`, `SELECT * FROM t LIMIT 1 OFFSET 0`} {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		rows.Close()
	}
}

// Wide characters (CJK, emoji) take two terminal columns: the table stays
// aligned and within the width.
func TestTableAlignsWideCharacters(t *testing.T) {
	q := `SELECT * FROM (VALUES ('日本語のキー', 'ascii'), ('k', '🍵🍵🍵 tea')) t(key, value)`
	for _, width := range []int{0, 20} {
		out := writeSQL(t, q, WriteOptions{Format: "table", Width: width, MaxCell: 8})
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		want := runewidthOf(lines[0])
		for _, l := range lines[:len(lines)-1] {
			if w := runewidthOf(l); w != want || (width > 0 && w > width) {
				t.Errorf("width %d: line %q is %d columns, the first %d:\n%s", width, l, w, want, out)
			}
		}
	}
}

func runewidthOf(s string) int { return runewidth.StringWidth(s) }

// The locked engine (the server's /api/sql and notebooks) gives the same
// hint in its refusal of an unquoted offset.
func TestOffsetHintLocked(t *testing.T) {
	e, err := Open(context.Background(), fixture(t), Options{Locked: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for q, hint := range map[string]bool{
		`SELECT offset FROM "shop.events-v2"`:                  true,
		`SELECT "offset" FROM "shop.events-v2" LIMIT 1 OFFSET`: false,
		`SELEC 1`: false,
	} {
		_, err := e.Query(context.Background(), q)
		if err == nil || strings.Contains(err.Error(), OffsetHint) != hint {
			t.Errorf("%s: %v; want the hint: %v", q, err, hint)
		}
	}
}

// A value or an alias that holds a terminal's escape sequence, a control
// character or bytes that are not UTF-8 reaches the terminal escaped in
// every text format, and exactly as it is in CSV and JSON (machine
// formats: the reader decides).
func TestTextFormatsEscapeHostileText(t *testing.T) {
	q := `SELECT chr(27) || '[2J' || chr(27) || ']0;pwned' || chr(7) AS "a` + "\x1b" + `[31m", 'x' || chr(155) || 'y' AS c1, TIMESTAMP '2026-07-16 11:21:00.123456' AS ts, 1/3 AS f`
	for _, format := range []string{"table", "line", "markdown"} {
		t.Run(format, func(t *testing.T) {
			out := writeSQL(t, q, WriteOptions{Format: format})
			if strings.ContainsAny(out, "\x1b\x07\u009b") {
				t.Errorf("%s output holds a control character:\n%q", format, out)
			}
			for _, want := range []string{`\x1B[2J\x1B]0;pwned\x07`, `a\x1B[31m`, `x\u009By`, "2026-07-16 11:21:00.123456Z", "0.3333333333333333"} {
				if !strings.Contains(out, want) {
					t.Errorf("%s output lacks %q:\n%s", format, want, out)
				}
			}
		})
	}
	csv := writeSQL(t, q, WriteOptions{Format: "csv"})
	if !strings.Contains(csv, "\x1b[2J\x1b]0;pwned\x07") {
		t.Errorf("csv changed the value:\n%q", csv)
	}
}

func TestPartitionList(t *testing.T) {
	for _, c := range []struct {
		in   []int32
		want string
	}{{[]int32{0, 1, 2}, "[0,1,2]"}, {[]int32{7}, "[7]"}} {
		if got := partitionList(c.in); got != c.want {
			t.Errorf("partitionList(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := partitionList([]int64{3, 12}); got != "[3,12]" {
		t.Errorf("partitionList(int64) = %q", got)
	}
}

// TestWriteRowsUUID: a UUID column is written as the UUID's text in every
// format of sql; duckdb-go scans it into 16 bytes, which the table showed
// as \xHH escapes and JSON as base64.
func TestWriteRowsUUID(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	const u = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
	for _, f := range []string{"table", "csv", "json", "jsonl", "markdown", "line"} {
		rows, err := db.QueryContext(ctx, "SELECT UUID '"+u+"' AS u, '\\xA0'::BLOB AS b")
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := WriteRows(ctx, &out, rows, WriteOptions{Format: f}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !strings.Contains(out.String(), u) {
			t.Errorf("%s: no %s in\n%s", f, u, out.String())
		}
		if f == "json" && !strings.Contains(out.String(), `"b":"oA=="`) {
			t.Errorf("json: a BLOB is no longer base64:\n%s", out.String())
		}
	}
}

// TestWriteRowsTyped: a value reads the same in every format, nested or
// not, and the JSON formats stay valid JSON (a MAP holding NaN made json
// print "[Error: ..."; a TIME read 0001-01-01 12:00:00Z; a TIMESTAMP_NS
// lost its nanoseconds as text; a UUID in a LIST was 16 bytes).
func TestWriteRowsTyped(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	const u = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
	cases := []struct {
		name, expr string
		want       []string // in every format
	}{
		{"time", "TIME '12:00'", []string{"12:00:00"}},
		{"timetz", "TIMETZ '12:00:00+01'", []string{"12:00:00+01"}},
		{"timestamp_ns", "TIMESTAMP_NS '2020-01-01 00:00:00.123456789'", []string{"00:00:00.123456789Z"}},
		{"infinity", "'infinity'::TIMESTAMP", []string{"infinity"}},
		{"date", "DATE '2026-12-07'", []string{"2026-12-07"}}, // was 2026-12-07 00:00:00Z
		{"uuid in list", "[UUID '" + u + "']", []string{u}},
		{"uuid in struct", "{'id': UUID '" + u + "'}", []string{u}},
		{"map nan", "MAP {'a': 'nan'::DOUBLE}", []string{"NaN"}},
	}
	for _, c := range cases {
		for _, f := range []string{"table", "csv", "json", "jsonl", "markdown", "line"} {
			t.Run(c.name+"/"+f, func(t *testing.T) {
				rows, err := db.QueryContext(ctx, "SELECT "+c.expr+" AS v")
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				if _, err := WriteRows(ctx, &out, rows, WriteOptions{Format: f}); err != nil {
					t.Fatalf("%v\n%s", err, out.String())
				}
				for _, w := range c.want {
					if !strings.Contains(out.String(), w) {
						t.Errorf("no %s in\n%s", w, out.String())
					}
				}
				if strings.Contains(out.String(), "0001-01-01") {
					t.Errorf("a time of day read as a date:\n%s", out.String())
				}
				if c.name == "date" && strings.Contains(out.String(), "00:00") {
					t.Errorf("a date read as a timestamp at midnight:\n%s", out.String())
				}
				if f == "json" && !json.Valid(out.Bytes()) {
					t.Errorf("invalid JSON:\n%s", out.String())
				}
			})
		}
	}
}
