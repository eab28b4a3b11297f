package queries

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

func init() {
	register(&Check{
		Name:    "missing",
		Summary: "expected keys (from a file or a topic) with no matching record",
		Order:   40,
		Options: []string{"against", "against_key", "against_topic", "against_where", "against_match", "where", "match", "by", "reverse", "limit"},
		Needs:   missingNeeds,
		run:     checkMissing,
	})
}

func checkMissing(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	var err error
	if d.Match, err = e.Expr(ctx, "match", o.Match, o.Topic); err != nil {
		return nil, err
	}
	if e.opts.Remote != nil {
		if d.MatchText, err = e.remoteText(ctx, "missing", "match", d.Match, o.Topic); err != nil {
			return nil, err
		}
	}
	d.Where = "true"
	if o.Where != "" {
		if d.Where, err = e.Expr(ctx, "where", o.Where, o.Topic); err != nil {
			return nil, err
		}
	}
	var args []any
	if o.Against != "" {
		keys, bys, err := e.readExpected(ctx, o)
		if err != nil {
			return nil, err
		}
		// The expected keys are values: bound as one JSON list each, never
		// written into the statement.
		kj, _ := json.Marshal(keys)
		bj, _ := json.Marshal(bys)
		args = []any{string(kj), string(bj)}
		d.Expected = `(SELECT unnest(from_json($1::JSON, '["VARCHAR"]')) AS k, unnest(from_json($2::JSON, '["VARCHAR"]')) AS b)`
		if r := e.opts.Remote; r != nil {
			// A remote takes the lists as literals (its dialect has no
			// bound parameters here): rendered, never spliced as text.
			kl, err := r.Literal(string(kj))
			if err != nil {
				return nil, err
			}
			bl, err := r.Literal(string(bj))
			if err != nil {
				return nil, err
			}
			d.Expected = fmt.Sprintf("(SELECT inline(arrays_zip(from_json(%s, 'ARRAY<STRING>'), from_json(%s, 'ARRAY<STRING>'))) AS (k, b))", kl, bl)
			args = nil
		}
	} else {
		if _, ok := e.Topic(o.AgainstTopic); !ok {
			return nil, optErr("against_topic", o.AgainstTopic, "has no snapshot (topicsnap ls lists the topics)")
		}
		at := quoteIdent(o.AgainstTopic)
		match, err := e.Expr(ctx, "against_match", o.AgainstMatch, o.AgainstTopic)
		if err != nil {
			return nil, err
		}
		where := "true"
		if o.AgainstWhere != "" {
			if where, err = e.Expr(ctx, "against_where", o.AgainstWhere, o.AgainstTopic); err != nil {
				return nil, err
			}
		}
		by := "NULL"
		if o.By != "" {
			if by, err = e.Expr(ctx, "by", o.By, o.AgainstTopic); err != nil {
				return nil, err
			}
		}
		d.Expected = fmt.Sprintf("(SELECT (%s) AS k, (%s) AS b FROM %s WHERE (%s))", match, by, at, where)
		if e.opts.Remote != nil {
			// Spark reads "FROM t WHERE (x)" as t aliased WHERE(x): an
			// alias first. The keys are DuckDB's text of them.
			if match, err = e.remoteText(ctx, "missing", "against_match", match, o.AgainstTopic); err != nil {
				return nil, err
			}
			if by != "NULL" {
				if by, err = e.remoteText(ctx, "missing", "by", by, o.AgainstTopic); err != nil {
					return nil, err
				}
			}
			d.Expected = fmt.Sprintf("(SELECT (%s) AS k, (%s) AS b FROM %s AS a WHERE (%s))", match, by, at, where)
		}
	}
	rows, err := e.run(ctx, "missing", d, args...)
	if err != nil {
		return nil, err
	}
	var expected, matched int64
	byCount := map[string]int64{}
	var missing []Row
	for _, x := range rows {
		expected++
		if x.Get("matched") == true {
			matched++
			continue
		}
		b := fmt.Sprint(x.Get("by"))
		if x.Get("by") == nil {
			b = ""
		}
		byCount[b]++
		missing = append(missing, x)
	}
	sort.Slice(missing, func(i, j int) bool { return fmt.Sprint(missing[i].Get("key")) < fmt.Sprint(missing[j].Get("key")) })
	nMissing := expected - matched
	share := 0.0
	var shareV any // no key expected: no share to speak of
	if expected > 0 {
		share = round4(float64(nMissing) / float64(expected))
		shareV = share
	}
	r := &Report{Summary: NewRow()}
	r.Summary.Set("expected", expected).Set("matched", matched).Set("missing", nMissing).Set("missing_share", shareV)
	if o.By != "" {
		var bys []string
		for b := range byCount {
			bys = append(bys, b)
		}
		sort.Slice(bys, func(i, j int) bool { return byCount[bys[i]] > byCount[bys[j]] })
		var bt []Row
		for _, b := range bys {
			s := 0.0
			if nMissing > 0 {
				s = round4(float64(byCount[b]) / float64(nMissing))
			}
			row := NewRow().Set("kind", "by").Set("by", b).Set("missing", byCount[b]).Set("share_of_missing", s)
			bt = append(bt, *row)
			r.Rows = append(r.Rows, *row)
		}
		r.Tables = append(r.Tables, rowsTable("Missing by "+o.By, bt))
	}
	for i, m := range missing {
		if i >= o.Limit {
			break
		}
		r.Rows = append(r.Rows, *NewRow().Set("kind", "missing").Set("key", m.Get("key")).Set("by", m.Get("by")))
	}
	if o.Reverse {
		rev, err := e.run(ctx, "missing_reverse", d, args...)
		if err != nil {
			return nil, err
		}
		r.Summary.Set("unexpected", int64(len(rev)))
		for i, x := range rev {
			if i >= o.Limit {
				break
			}
			x.Set("kind", "unexpected")
			r.Rows = append(r.Rows, x)
		}
	}
	if nMissing == 0 {
		r.Status, r.Message = StatusOK, fmt.Sprintf("all %d expected keys have a matching record", expected)
	} else {
		r.Status = StatusFail
		r.Message = fmt.Sprintf("%d of %d expected keys have no matching record (%.1f%%)", nMissing, expected, share*100)
		if o.By != "" && len(byCount) > 0 {
			top, topN := "", int64(-1)
			for b, c := range byCount {
				if c > topN {
					top, topN = b, c
				}
			}
			r.Message += fmt.Sprintf(", %.1f%% of them %s", float64(topN)/float64(nMissing)*100, top)
		}
	}
	return r, nil
}

// readExpected reads the expected keys (and the --by column) of missing's
// --against file. The path is bound as a value and the columns are quoted
// identifiers: nothing of the file or the options becomes SQL text.
func (e *Engine) readExpected(ctx context.Context, o CheckOptions) (keys, bys []*string, err error) {
	abs, err := filepath.Abs(o.Against)
	if err != nil {
		return nil, nil, optErr("against", o.Against, "%v", err)
	}
	if st, err := os.Stat(abs); err != nil {
		return nil, nil, optErr("against", o.Against, "%v", err)
	} else if !st.Mode().IsRegular() {
		return nil, nil, optErr("against", o.Against, "is not a regular file")
	}
	if o.AgainstKey == "" {
		return nil, nil, &NeedsError{Check: "missing", Needs: []string{"against_key"}}
	}
	// Keys are text, compared as text: a CSV's columns are read as
	// written (all_varchar), never as the types DuckDB's sniffer guesses
	// from a sample of its rows (which read "0.50" as 0.5 and
	// "2024-01-01T00:00:00Z" as "2024-01-01 00:00:00+00", so such keys
	// were all missing), and a JSON file's members as json_extract_string
	// reads them (read_json's guesses would do the same).
	reader := "read_csv"
	isJSON := false
	switch strings.ToLower(filepath.Ext(abs)) {
	case ".parquet":
		reader = "read_parquet"
	case ".json", ".jsonl", ".ndjson":
		reader, isJSON = "read_json", true
	}
	args := ""
	if reader == "read_csv" {
		args = ", all_varchar = true"
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("connect duckdb: %w", err)
	}
	defer conn.Close()
	head, err := conn.QueryContext(ctx, "SELECT * FROM "+reader+"(?"+args+") LIMIT 0", abs)
	if err != nil {
		return nil, nil, optErr("against", o.Against, "cannot be read: %v", CleanError(err))
	}
	cols, _ := head.Columns()
	head.Close()
	if !slices.Contains(cols, o.AgainstKey) {
		return nil, nil, optErr("against_key", o.AgainstKey, "is not a column of %s (it has %s)", o.Against, strings.Join(cols, ", "))
	}
	by := "NULL"
	if o.By != "" {
		if !slices.Contains(cols, o.By) {
			return nil, nil, optErr("by", o.By, "is not a column of %s (it has %s)", o.Against, strings.Join(cols, ", "))
		}
		by = "CAST(" + quoteIdent(o.By) + " AS VARCHAR)"
	}
	q := "SELECT CAST(" + quoteIdent(o.AgainstKey) + " AS VARCHAR), " + by + " FROM " + reader + "(?" + args + ")"
	qargs := []any{abs}
	if isJSON {
		// The members' text: a JSON pointer each, bound as values.
		ptr := func(name string) string { return "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name) }
		by = "NULL"
		if o.By != "" {
			by = "json_extract_string(json, ?)"
		}
		q = "SELECT json_extract_string(json, ?), " + by + " FROM read_json_objects(?)"
		qargs = []any{ptr(o.AgainstKey)}
		if o.By != "" {
			qargs = append(qargs, ptr(o.By))
		}
		qargs = append(qargs, abs)
	}
	rows, err := conn.QueryContext(ctx, q, qargs...)
	if err != nil {
		return nil, nil, optErr("against", o.Against, "cannot be read: %v", CleanError(err))
	}
	defer rows.Close()
	for rows.Next() {
		var k, b *string
		if err := rows.Scan(&k, &b); err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", o.Against, err)
		}
		keys, bys = append(keys, k), append(bys, b)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, optErr("against", o.Against, "cannot be read: %v", CleanError(err))
	}
	return keys, bys, nil
}

// missingNeeds: the keys to expect (a file with its key column, or a topic
// with its key expression) and the expression to match them with.
func missingNeeds(o CheckOptions) []string {
	var out []string
	if o.Match == "" {
		out = append(out, "match")
	}
	switch {
	case o.Against != "" && o.AgainstKey == "":
		out = append(out, "against_key")
	case o.AgainstTopic != "" && o.AgainstMatch == "":
		out = append(out, "against_match")
	case o.Against == "" && o.AgainstTopic == "":
		out = append(out, "against|against_topic")
	}
	return out
}
