package queries

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/template"

	"github.com/topicsnap/topicsnap/catalog"
)

//go:embed sql/*.sql
var sqlFS embed.FS

var sqlTemplates = loadTemplates()

// sqlData fills a check's SQL template. Every field is either a quoted
// identifier or DuckDB's own rendering of a parsed expression (Engine.Expr).
type sqlData struct {
	T, All                        string
	ID, By, Expr, Time, EventTime string
	Match, Where, Expected        string
}

// loadTemplates parses the checks' SQL files. A file's comment lines
// document it and are never a template: they are dropped before parsing,
// so no value reaches a comment.
func loadTemplates() *template.Template {
	t := template.New("").Option("missingkey=error")
	files, err := fs.Glob(sqlFS, "sql/*.sql")
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		b, err := sqlFS.ReadFile(f)
		if err != nil {
			panic(err)
		}
		template.Must(t.New(path.Base(f)).Parse(stripComments(string(b))))
	}
	return t
}

// stripComments drops the lines of a check's SQL that are only a comment.
func stripComments(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func render(name string, d sqlData) (string, error) {
	var b bytes.Buffer
	if err := sqlTemplates.ExecuteTemplate(&b, name+".sql", d); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

func init() {
	checkFuncs["gaps"] = checkGaps
	checkFuncs["duplicates"] = checkDuplicates
	checkFuncs["skew"] = checkSkew
	checkFuncs["lag"] = checkLag
	checkFuncs["keys"] = checkKeys
	checkFuncs["order"] = checkOrder
	checkFuncs["freshness"] = checkFreshness
	checkFuncs["missing"] = checkMissing
}

// queryRows runs a rendered check statement and returns ordered rows. The
// statement is parsed whole and judged by the guard (guard.go) first, on
// every engine: a check runs one read-only SELECT over the topic views and
// catalog tables, whatever its options said.
func (e *Engine) queryRows(ctx context.Context, q string, args ...any) ([]Row, error) {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect duckdb: %w", err)
	}
	defer conn.Close()
	doc, err := parseSQL(ctx, conn, q)
	if err != nil {
		return nil, err
	}
	if err := e.guard(doc); err != nil {
		return nil, fmt.Errorf("check statement: %w", err)
	}
	rows, reset, err := e.queryLazy(ctx, conn, q, doc, args...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, CleanError(err)
	}
	defer reset()
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []Row
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		r := NewRow()
		for i, c := range cols {
			r.Set(c, vals[i])
		}
		out = append(out, *r)
	}
	return out, rows.Err()
}

func (e *Engine) run(ctx context.Context, name string, d sqlData, args ...any) ([]Row, error) {
	q, err := render(name, d)
	if err != nil {
		return nil, err
	}
	return e.queryRows(ctx, q, args...)
}

func views(topic string) sqlData {
	return sqlData{T: quoteIdent(topic), All: quoteIdent(topic + "$all")}
}

func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case uint64:
		return int64(x)
	case float64:
		return int64(x)
	case interface{ Int64() int64 }:
		return x.Int64()
	}
	return 0
}

func asFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	case nil:
		return 0
	case interface{ Float64() (float64, error) }:
		f, _ := x.Float64()
		return f
	}
	return float64(asInt(v))
}

func round4(f float64) float64 { return math.Round(f*10000) / 10000 }

// humanSeconds says a duration the way a person would.
func humanSeconds(s float64) string {
	switch {
	case s < 120:
		return fmt.Sprintf("%.0f seconds", s)
	case s < 2*3600:
		return fmt.Sprintf("%.0f minutes", s/60)
	case s < 2*86400:
		return fmt.Sprintf("%.1f hours", s/3600)
	}
	return fmt.Sprintf("%.1f days", s/86400)
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// hole is a range of absent offsets and what explains it.
type hole struct {
	partition int32
	from, to  int64
	kind      string
}

func checkGaps(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	parts, err := e.run(ctx, "gaps_partitions", d)
	if err != nil {
		return nil, err
	}
	holesRows, err := e.run(ctx, "gaps_holes", d)
	if err != nil {
		return nil, err
	}
	// The catalog as the engine loaded it (the views' version), never the
	// folder read again: one report describes one catalog version.
	tf, _ := e.topicFilesOf(o.Topic)
	ms := tf.manifests
	compacted := false
	e.mu.RLock()
	snaps := e.snaps
	e.mu.RUnlock()
	for _, s := range snaps {
		if s.Topic == o.Topic {
			compacted = strings.Contains(s.Configs["cleanup.policy"], "compact")
		}
	}
	lostBy := map[int32][]catalog.LostRange{}
	for _, m := range ms {
		lostBy[m.Partition] = m.Lost
	}
	lastBy := map[int32]int64{}
	for _, p := range parts {
		lastBy[int32(asInt(p.Get("partition")))] = asInt(p.Get("last_offset"))
	}
	var raw []hole
	for _, h := range holesRows {
		raw = append(raw, hole{partition: int32(asInt(h.Get("partition"))), from: asInt(h.Get("hole_from")), to: asInt(h.Get("hole_to"))})
	}
	// Holes before the first stored offset (from where the first snapshot
	// started reading) and after the last one (up to where the dump stopped).
	firstBy := map[int32]int64{}
	for _, p := range parts {
		firstBy[int32(asInt(p.Get("partition")))] = asInt(p.Get("first_offset"))
	}
	for _, m := range ms {
		from := int64(-1)
		for _, s := range m.Snapshots {
			if from < 0 || s.From < from {
				from = s.From
			}
		}
		first, hasRows := firstBy[m.Partition]
		last := lastBy[m.Partition]
		switch {
		case !hasRows && from >= 0 && m.NextOffset > from:
			raw = append(raw, hole{partition: m.Partition, from: from, to: m.NextOffset - 1})
		case hasRows:
			if from >= 0 && first > from {
				raw = append(raw, hole{partition: m.Partition, from: from, to: first - 1})
			}
			if m.NextOffset > last+1 {
				raw = append(raw, hole{partition: m.Partition, from: last + 1, to: m.NextOffset - 1})
			}
		}
	}
	duplicated := int64(0)
	var holes []hole
	for _, h := range raw {
		if h.to < h.from { // lead() equal to offset: stored twice
			duplicated++
			continue
		}
		holes = append(holes, splitHole(h, lostBy[h.partition], compacted)...)
	}
	// Lost ranges outside the stored span (before the first snapshot) count too.
	sum := map[string]int64{}
	for p, ls := range lostBy {
		for _, l := range ls {
			covered := false
			for _, h := range holes {
				if h.partition == p && h.kind == l.Kind && h.from >= l.From && h.to <= l.To {
					covered = true
				}
			}
			if !covered {
				holes = append(holes, hole{partition: p, from: l.From, to: l.To, kind: l.Kind})
			}
		}
	}
	sort.Slice(holes, func(i, j int) bool {
		if holes[i].partition != holes[j].partition {
			return holes[i].partition < holes[j].partition
		}
		return holes[i].from < holes[j].from
	})
	var records, control, aborted int64
	for _, p := range parts {
		records += asInt(p.Get("records"))
		control += asInt(p.Get("control_records"))
		aborted += asInt(p.Get("aborted_records"))
	}
	missingBy := map[int32]int64{}
	for _, h := range holes {
		n := h.to - h.from + 1
		switch h.kind {
		case "missing":
			sum["missing"] += n
			missingBy[h.partition] += n
		case "compacted":
			sum["compacted"] += n
		default:
			sum["expired"] += n
			if h.kind == catalog.LostBetween {
				sum["between"] += n
			}
		}
	}
	r := &Report{Summary: NewRow()}
	nParts := int64(len(ms))
	r.Summary.Set("partitions", nParts).Set("records", records).
		Set("missing_offsets", sum["missing"]).Set("control_records", control).
		Set("aborted_records", aborted).Set("compacted_offsets", sum["compacted"]).
		Set("expired_offsets", sum["expired"]).Set("duplicated_offsets", duplicated)
	for _, p := range parts {
		pn := int32(asInt(p.Get("partition")))
		first, last, n := asInt(p.Get("first_offset")), asInt(p.Get("last_offset")), asInt(p.Get("records"))
		row := NewRow().Set("kind", "partition").Set("partition", pn).Set("first_offset", first).Set("last_offset", last).
			Set("records", n).Set("naive_missing", last-first+1-n).
			Set("control_records", p.Get("control_records")).Set("aborted_records", p.Get("aborted_records")).
			Set("missing_offsets", missingBy[pn])
		r.Rows = append(r.Rows, *row)
	}
	for _, h := range holes {
		kind := h.kind
		r.Rows = append(r.Rows, *NewRow().Set("kind", kind).Set("partition", h.partition).Set("from_offset", h.from).Set("to_offset", h.to).Set("offsets", h.to-h.from+1))
	}
	switch {
	case sum["missing"] > 0:
		r.Status = StatusFail
		r.Message = fmt.Sprintf("%s unexplained on %d of %d partitions", plural(sum["missing"], "missing offset", "missing offsets"), len(missingBy), nParts)
	case sum["between"] > 0:
		r.Status = StatusFail
		r.Message = fmt.Sprintf("%s deleted by Kafka between snapshots before they were dumped", plural(sum["between"], "offset was", "offsets were"))
	case duplicated > 0:
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("0 missing offsets, but %s stored twice", plural(duplicated, "offset", "offsets"))
	default:
		r.Status = StatusOK
		r.Message = fmt.Sprintf("0 missing offsets on all %d partitions", nParts)
	}
	var explained []string
	if control > 0 {
		explained = append(explained, plural(control, "transaction marker", "transaction markers"))
	}
	if aborted > 0 {
		explained = append(explained, plural(aborted, "aborted record", "aborted records"))
	}
	if sum["compacted"] > 0 {
		explained = append(explained, plural(sum["compacted"], "compacted offset", "compacted offsets"))
	}
	if sum["expired"] > 0 {
		explained = append(explained, plural(sum["expired"], "offset Kafka deleted (retention or DeleteRecords) before it was read", "offsets Kafka deleted (retention or DeleteRecords) before they were read"))
	}
	if len(explained) > 0 {
		r.Message += "; explained: " + strings.Join(explained, ", ")
	}
	return r, nil
}

// splitHole classifies a hole's offsets: those inside lost ranges are
// expired (of the range's kind), the rest compacted on a compacted topic,
// missing otherwise.
func splitHole(h hole, lost []catalog.LostRange, compacted bool) []hole {
	rest := []hole{h}
	var out []hole
	for _, l := range lost {
		var next []hole
		for _, r := range rest {
			lo, hi := max(r.from, l.From), min(r.to, l.To)
			if lo > hi {
				next = append(next, r)
				continue
			}
			out = append(out, hole{r.partition, lo, hi, l.Kind})
			if r.from < lo {
				next = append(next, hole{r.partition, r.from, lo - 1, ""})
			}
			if hi < r.to {
				next = append(next, hole{r.partition, hi + 1, r.to, ""})
			}
		}
		rest = next
	}
	for _, r := range rest {
		r.kind = "missing"
		if compacted {
			r.kind = "compacted"
		}
		out = append(out, r)
	}
	return out
}

func checkDuplicates(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	d.ID = "row(key_raw, value_raw)"
	if o.ID != "" {
		var err error
		if d.ID, err = e.Expr(ctx, "id", o.ID, o.Topic); err != nil {
			return nil, err
		}
	}
	rows, err := e.run(ctx, "duplicates", d, o.Limit)
	if err != nil {
		return nil, err
	}
	first := rows[0]
	records, distinct, dupIDs, extra := asInt(first.Get("records")), asInt(first.Get("distinct_ids")), asInt(first.Get("duplicate_ids")), asInt(first.Get("extra_copies"))
	share := 0.0
	if records > 0 {
		share = round4(float64(extra) / float64(records))
	}
	r := &Report{Summary: NewRow()}
	r.Summary.Set("records", records).Set("distinct_ids", distinct).Set("duplicate_ids", dupIDs).Set("extra_copies", extra).Set("duplicate_share", share)
	for _, x := range rows {
		if x.Get("first_offset") == nil {
			continue // no example: the counts alone
		}
		ex := NewRow().Set("kind", "duplicate")
		for _, k := range []string{"id", "copies", "first_partition", "first_offset", "second_partition", "second_offset", "seconds_between"} {
			ex.Set(k, x.Get(k))
		}
		r.Rows = append(r.Rows, *ex)
	}
	if o.By != "" {
		var err error
		if d.By, err = e.Expr(ctx, "by", o.By, o.Topic); err != nil {
			return nil, err
		}
		by, err := e.run(ctx, "duplicates_by", d)
		if err != nil {
			return nil, err
		}
		r.Tables = append(r.Tables, rowsTable("By "+o.By, by))
		for _, b := range by {
			b.Set("kind", "by")
			r.Rows = append(r.Rows, b)
		}
	}
	if dupIDs == 0 {
		r.Status, r.Message = StatusOK, fmt.Sprintf("no id occurs twice among %d records", records)
	} else {
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("%s more than once: %s, %.1f%% of %d records", plural(dupIDs, "id occurs", "ids occur"), plural(extra, "extra copy", "extra copies"), share*100, records)
	}
	return r, nil
}

func rowsTable(title string, rows []Row) Table {
	t := Table{Title: title}
	if len(rows) > 0 {
		t.Columns = rows[0].Keys
	}
	for _, r := range rows {
		var vals []any
		for _, k := range t.Columns {
			vals = append(vals, r.Get(k))
		}
		t.Rows = append(t.Rows, vals)
	}
	return t
}

func (e *Engine) partitionCount(ctx context.Context, topic string) (int64, error) {
	var n sql.NullInt64
	err := e.db.QueryRowContext(ctx, `SELECT max(partition_count) FROM snapshots WHERE topic = $1`, topic).Scan(&n)
	if err != nil {
		return 0, CleanError(err)
	}
	if !n.Valid || n.Int64 == 0 {
		t, _ := e.Topic(topic)
		return int64(t.Partitions), nil
	}
	return n.Int64, nil
}

func checkSkew(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	hot := o.Hot
	if hot <= 0 {
		hot = 1.5
	}
	parts, err := e.run(ctx, "skew", d, o.Topic)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, p := range parts {
		total += asInt(p.Get("records"))
	}
	n := int64(len(parts))
	fair := 0.0
	if n > 0 {
		fair = 1 / float64(n)
	}
	maxS, minS := 0.0, 1.0
	var hotN, emptyN int64
	for i := range parts {
		p := &parts[i]
		share := 0.0
		if total > 0 {
			share = float64(asInt(p.Get("records"))) / float64(total)
		}
		maxS, minS = math.Max(maxS, share), math.Min(minS, share)
		isHot := n > 1 && share >= hot*fair
		if isHot {
			hotN++
		}
		if asInt(p.Get("records")) == 0 {
			emptyN++
		}
		p.Set("share", round4(share)).Set("fair_share", round4(fair)).Set("hot", isHot).Set("kind", "partition")
	}
	if n == 0 {
		minS = 0
	}
	keys, err := e.run(ctx, "skew_keys", d, 10)
	if err != nil {
		return nil, err
	}
	var keyCount int64
	if len(keys) > 0 {
		keyCount = asInt(keys[0].Get("keys"))
	}
	r := &Report{Summary: NewRow(), Rows: parts}
	r.Summary.Set("partitions", n).Set("records", total).Set("fair_share", round4(fair)).Set("max_share", round4(maxS)).
		Set("min_share", round4(minS)).Set("hot_partitions", hotN).Set("empty_partitions", emptyN).Set("keys", keyCount)
	var top []Row
	for _, k := range keys {
		row := NewRow().Set("kind", "top_key").Set("key", k.Get("key")).Set("records", k.Get("records")).Set("share", round4(asFloat(k.Get("share"))))
		top = append(top, *row)
	}
	r.Rows = append(r.Rows, top...)
	r.Tables = append(r.Tables, rowsTable("Top keys", top))
	if o.WhatIfKey != "" {
		var err error
		if d.Expr, err = e.Expr(ctx, "what_if_key", o.WhatIfKey, o.Topic); err != nil {
			return nil, err
		}
		wn := int64(o.WhatIfPartitions)
		if wn <= 0 {
			wn = n
		}
		wi, err := e.run(ctx, "skew_whatif", d, wn)
		if err != nil {
			return nil, err
		}
		var wt int64
		for _, w := range wi {
			wt += asInt(w.Get("records"))
		}
		wmax := 0.0
		var used int64
		for _, w := range wi {
			s := 0.0
			if wt > 0 {
				s = float64(asInt(w.Get("records"))) / float64(wt)
			}
			wmax = math.Max(wmax, s)
			if asInt(w.Get("records")) > 0 {
				used++
			}
			r.Rows = append(r.Rows, *NewRow().Set("kind", "what_if").Set("partition", w.Get("partition")).Set("records", w.Get("records")).Set("share", round4(s)))
		}
		r.Summary.Set("what_if_max_share", round4(wmax)).Set("what_if_partitions_used", used)
	}
	switch {
	case hotN > 0:
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("%s hot: the largest holds %.1f%% of records against a fair share of %.1f%%", plural(hotN, "partition is", "partitions are"), maxS*100, fair*100)
	case emptyN > 0 && total > 0:
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("%s no records; shares range %.1f%%–%.1f%%", plural(emptyN, "partition holds", "partitions hold"), minS*100, maxS*100)
	default:
		r.Status = StatusOK
		r.Message = fmt.Sprintf("each of %d partitions holds between %.1f%% and %.1f%% of records, close to the fair share of %.1f%%", n, minS*100, maxS*100, fair*100)
	}
	return r, nil
}

func checkLag(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	rows, err := e.run(ctx, "lag", d, o.Topic)
	if err != nil {
		return nil, err
	}
	members, err := e.run(ctx, "lag_members", d, o.Topic)
	if err != nil {
		return nil, err
	}
	groups := map[string]bool{}
	var maxRec int64
	maxSec, minHead := 0.0, math.Inf(1)
	for i := range rows {
		rows[i].Set("kind", "offset")
		groups[rows[i].Get("group_id").(string)] = true
		maxRec = max(maxRec, asInt(rows[i].Get("lag_records")))
		maxSec = math.Max(maxSec, asFloat(rows[i].Get("lag_seconds")))
		if h := rows[i].Get("retention_headroom_seconds"); h != nil {
			minHead = math.Min(minHead, asFloat(h))
		}
	}
	r := &Report{Summary: NewRow(), Rows: rows}
	r.Summary.Set("groups", int64(len(groups))).Set("max_lag_records", maxRec).Set("max_lag_seconds", maxSec)
	if math.IsInf(minHead, 1) {
		r.Summary.Set("min_retention_headroom_seconds", nil)
	} else {
		r.Summary.Set("min_retention_headroom_seconds", minHead)
	}
	for _, m := range members {
		m.Set("kind", "member")
		r.Rows = append(r.Rows, m)
	}
	r.Tables = append(r.Tables, rowsTable("Members", members))
	// A cut whose principal could not read every group does not prove there
	// were none: say so rather than "no group".
	unread, err := e.run(ctx, "lag_unread", d, o.Topic)
	if err != nil {
		return nil, err
	}
	r.Summary.Set("snapshots_with_unreadable_groups", int64(len(unread)))
	for _, u := range unread {
		u.Set("kind", "groups_unreadable")
		r.Rows = append(r.Rows, u)
	}
	switch {
	case len(groups) == 0 && len(unread) > 0:
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("no committed offsets recorded, but the consumer groups could not all be read at %s: %v",
			plural(int64(len(unread)), "snapshot", "snapshots"), unread[0].Get("groups_error"))
	case len(groups) == 0:
		r.Status, r.Message = StatusOK, "no consumer group had committed offsets on the topic at the snapshots"
	case !math.IsInf(minHead, 1) && minHead < 3600:
		r.Status = StatusFail
		r.Message = fmt.Sprintf("a group is %d records and %s behind; its next record is deleted by retention in %s", maxRec, humanSeconds(maxSec), humanSeconds(max(minHead, 0)))
	case maxRec > 0:
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("%s; the furthest behind is %d records and %s", plural(int64(len(groups)), "group", "groups"), maxRec, humanSeconds(maxSec))
	default:
		r.Status = StatusOK
		r.Message = fmt.Sprintf("%s, all caught up at the cut", plural(int64(len(groups)), "group", "groups"))
	}
	return r, nil
}

func checkKeys(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	n, err := e.partitionCount(ctx, o.Topic)
	if err != nil {
		return nil, err
	}
	s, err := e.run(ctx, "keys", d, n)
	if err != nil {
		return nil, err
	}
	x := s[0]
	records, mis, crcMis, unexplained := asInt(x.Get("records")), asInt(x.Get("misplaced_records")), asInt(x.Get("crc32_misplaced_records")), asInt(x.Get("unexplained_records"))
	part := "unknown"
	switch {
	case records == 0:
		part = "unknown"
	case mis == 0:
		part = "murmur2"
	case crcMis == 0:
		part = "crc32"
	case unexplained == 0:
		part = "mixed"
	}
	r := &Report{Summary: NewRow()}
	r.Summary.Set("keys", asInt(x.Get("keys"))).Set("misplaced_records", mis).Set("split_keys", asInt(x.Get("split_keys"))).
		Set("partitioner", part).Set("explained_by_crc32", asInt(x.Get("explained_by_crc32"))).
		Set("unexplained_records", unexplained).Set("null_keys", asInt(x.Get("null_keys")))
	ex, err := e.run(ctx, "keys_examples", d, n, o.Limit)
	if err != nil {
		return nil, err
	}
	for _, x := range ex {
		row := NewRow().Set("kind", "misplaced")
		for _, k := range x.Keys {
			row.Set(k, x.Get(k))
		}
		r.Rows = append(r.Rows, *row)
	}
	switch {
	case mis == 0:
		r.Status, r.Message = StatusOK, fmt.Sprintf("every keyed record sits on murmur2(key) %% %d, the Java default partitioner", n)
	case unexplained == 0:
		r.Status, r.Message = StatusWarn, fmt.Sprintf("%s not on the Java default partition, all explained by librdkafka's crc32 partitioner (partitioner: %s)", plural(mis, "record is", "records are"), part)
	default:
		r.Status, r.Message = StatusFail, fmt.Sprintf("%s on a partition neither murmur2 nor crc32 explains", plural(unexplained, "record is", "records are"))
	}
	return r, nil
}

func checkOrder(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	d.Time = `"timestamp"`
	if o.Time != "" {
		var err error
		if d.Time, err = e.Expr(ctx, "time", o.Time, o.Topic); err != nil {
			return nil, err
		}
	}
	rows, err := e.run(ctx, "order", d, o.Limit)
	if err != nil {
		return nil, err
	}
	var keys, ooo int64
	var kr []Row
	if len(rows) > 0 {
		ooo = asInt(rows[0].Get("out_of_order_records"))
		keys = asInt(rows[0].Get("keys"))
	} else {
		kr, err = e.queryRows(ctx, fmt.Sprintf(`SELECT count(DISTINCT key_raw) AS keys FROM %s WHERE key_raw IS NOT NULL`, d.T))
		if err != nil {
			return nil, err
		}
		keys = asInt(kr[0].Get("keys"))
	}
	r := &Report{Summary: NewRow()}
	for _, x := range rows {
		ex := NewRow().Set("kind", "out_of_order")
		for _, k := range x.Keys {
			if k != "keys" && k != "out_of_order_records" { // summary figures, not the row's
				ex.Set(k, x.Get(k))
			}
		}
		r.Rows = append(r.Rows, *ex)
	}
	r.Summary.Set("keys", keys).Set("out_of_order_records", ooo)
	if ooo == 0 {
		r.Status, r.Message = StatusOK, fmt.Sprintf("the time of every one of %d keys only moves forward in offset order", keys)
	} else {
		r.Status, r.Message = StatusWarn, fmt.Sprintf("%s earlier than the record before them of the same key", plural(ooo, "record is", "records are"))
	}
	return r, nil
}

func checkFreshness(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	silence := o.Silence
	if silence <= 0 {
		silence = 300
	}
	parts, err := e.run(ctx, "freshness", d, o.Topic)
	if err != nil {
		return nil, err
	}
	maxStale := 0.0
	for i := range parts {
		parts[i].Set("kind", "partition")
		maxStale = math.Max(maxStale, asFloat(parts[i].Get("staleness_seconds")))
	}
	sil, err := e.run(ctx, "freshness_silence", d, silence, o.Limit)
	if err != nil {
		return nil, err
	}
	r := &Report{Summary: NewRow(), Rows: parts}
	var stretches int64 // all of them, not only the examples kept
	for _, s := range sil {
		stretches = asInt(s.Get("stretches"))
		x := NewRow().Set("kind", "silence")
		for _, k := range s.Keys {
			if k != "stretches" {
				x.Set(k, s.Get(k))
			}
		}
		r.Rows = append(r.Rows, *x)
	}
	var late int64
	if o.EventTime != "" {
		var err error
		if d.EventTime, err = e.Expr(ctx, "event_time", o.EventTime, o.Topic); err != nil {
			return nil, err
		}
		th := o.Late
		if th <= 0 {
			th = 60
		}
		lr, err := e.run(ctx, "freshness_late", d, th, o.Limit)
		if err != nil {
			return nil, err
		}
		if len(lr) > 0 {
			late = asInt(lr[0].Get("late_records"))
		}
		for _, l := range lr {
			l.Set("kind", "late")
			r.Rows = append(r.Rows, l)
		}
	}
	r.Summary.Set("max_staleness_seconds", maxStale).Set("silent_stretches", stretches).Set("late_records", late)
	var notes []string
	if len(sil) > 0 {
		longest := sil[0]
		notes = append(notes, fmt.Sprintf("%s; the longest: partition %d silent for %s while others carried on", plural(stretches, "silent stretch", "silent stretches"), asInt(longest.Get("partition")), humanSeconds(asFloat(longest.Get("seconds")))))
	}
	if late > 0 {
		notes = append(notes, plural(late, "late record", "late records"))
	}
	if len(notes) > 0 {
		r.Status, r.Message = StatusWarn, strings.Join(notes, "; ")
	} else {
		r.Status, r.Message = StatusOK, fmt.Sprintf("no silent stretch over %s; the newest record of each partition is at most %s older than the cut", humanSeconds(silence), humanSeconds(maxStale))
	}
	return r, nil
}

func checkMissing(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	if o.Against == "" && o.AgainstTopic == "" {
		return nil, optErr("against", "", "missing needs --against FILE --against-key COLUMN (or --against-topic)")
	}
	if o.Match == "" {
		return nil, optErr("match", "", "missing needs --match EXPR, the expression of the topic matched against the expected key")
	}
	var err error
	if d.Match, err = e.Expr(ctx, "match", o.Match, o.Topic); err != nil {
		return nil, err
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
	} else {
		if _, ok := e.Topic(o.AgainstTopic); !ok {
			return nil, optErr("against_topic", o.AgainstTopic, "has no snapshot (topicsnap ls lists the topics)")
		}
		at := quoteIdent(o.AgainstTopic)
		if o.AgainstMatch == "" {
			return nil, optErr("against_match", "", "--against-topic needs --against-match EXPR")
		}
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
	if expected > 0 {
		share = round4(float64(nMissing) / float64(expected))
	}
	r := &Report{Summary: NewRow()}
	r.Summary.Set("expected", expected).Set("matched", matched).Set("missing", nMissing).Set("missing_share", share)
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
		return nil, nil, optErr("against_key", "", "names the column of %s holding the expected key", o.Against)
	}
	reader := "read_csv"
	switch strings.ToLower(filepath.Ext(abs)) {
	case ".parquet":
		reader = "read_parquet"
	case ".json", ".jsonl", ".ndjson":
		reader = "read_json"
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("connect duckdb: %w", err)
	}
	defer conn.Close()
	head, err := conn.QueryContext(ctx, "SELECT * FROM "+reader+"(?) LIMIT 0", abs)
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
	rows, err := conn.QueryContext(ctx, "SELECT CAST("+quoteIdent(o.AgainstKey)+" AS VARCHAR), "+by+" FROM "+reader+"(?)", abs)
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
