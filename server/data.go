package server

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/queries"
)

// selectRows runs one read-only query through the locked engine and calls
// scan for each row.
func (s *Server) selectRows(ctx context.Context, what, q string, scan func(*sql.Rows) error) error {
	rows, err := s.engine.Query(ctx, q)
	if err != nil {
		return fmt.Errorf("read %s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows.Rows); err != nil {
			return fmt.Errorf("read %s: %w", what, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s: %w", what, queries.CleanError(err))
	}
	return nil
}

// sqlString quotes a SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// snapshots lists the cluster snapshots, newest first.
func (s *Server) snapshots(ctx context.Context) ([]apiSnapshot, error) {
	out := []apiSnapshot{}
	err := s.selectRows(ctx, "snapshots", `SELECT snapshot_id, topic, as_of, partition_count, replication_factor,
  coalesce(dumped_partitions, []) FROM snapshots ORDER BY as_of DESC, topic`, func(r *sql.Rows) error {
		var sn apiSnapshot
		var dumped any
		if err := r.Scan(&sn.ID, &sn.Topic, &sn.AsOf, &sn.PartitionCount, &sn.ReplicationFactor, &dumped); err != nil {
			return err
		}
		sn.Dumped = []int64{}
		list, _ := dumped.([]any)
		for _, p := range list {
			if n, err := toInt64(p); err == nil {
				sn.Dumped = append(sn.Dumped, n)
			}
		}
		out = append(out, sn)
		return nil
	})
	return out, err
}

// span is an inclusive offset range.
type span struct{ from, to int64 }

// partitionCoverage is what the catalog holds of one partition.
type partitionCoverage struct {
	Partition     int32
	Covered       []span // merged file ranges
	Lost          []span
	LogStart      int64 // from the newest snapshot; -1 when unknown
	HighWatermark int64
	Files         int
	Records       int64
}

// coverage reads the offset coverage of every partition of every topic.
func (s *Server) coverage(ctx context.Context) (map[string][]*partitionCoverage, error) {
	byTP := map[string]map[int32]*partitionCoverage{}
	get := func(topic string, p int32) *partitionCoverage {
		if byTP[topic] == nil {
			byTP[topic] = map[int32]*partitionCoverage{}
		}
		c := byTP[topic][p]
		if c == nil {
			c = &partitionCoverage{Partition: p, LogStart: -1, HighWatermark: -1}
			byTP[topic][p] = c
		}
		return c
	}
	err := s.selectRows(ctx, "files", `SELECT topic, "partition", first_offset, last_offset, records FROM files ORDER BY topic, "partition", first_offset`, func(r *sql.Rows) error {
		var t string
		var p int32
		var first, last, records int64
		if err := r.Scan(&t, &p, &first, &last, &records); err != nil {
			return err
		}
		c := get(t, p)
		c.Files++
		c.Records += records
		if n := len(c.Covered); n > 0 && c.Covered[n-1].to+1 >= first {
			c.Covered[n-1].to = max(c.Covered[n-1].to, last)
		} else {
			c.Covered = append(c.Covered, span{first, last})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = s.selectRows(ctx, "lost ranges", `SELECT topic, "partition", from_offset, to_offset FROM lost_ranges ORDER BY ALL`, func(r *sql.Rows) error {
		var t string
		var p int32
		var sp span
		if err := r.Scan(&t, &p, &sp.from, &sp.to); err != nil {
			return err
		}
		c := get(t, p)
		c.Lost = append(c.Lost, sp)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = s.selectRows(ctx, "partitions", `SELECT topic, "partition", log_start_offset, high_watermark FROM partitions
QUALIFY row_number() OVER (PARTITION BY topic, "partition" ORDER BY as_of DESC) = 1`, func(r *sql.Rows) error {
		var t string
		var p int32
		var ls, hw int64
		if err := r.Scan(&t, &p, &ls, &hw); err != nil {
			return err
		}
		c := get(t, p)
		c.LogStart, c.HighWatermark = ls, hw
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := map[string][]*partitionCoverage{}
	for t, ps := range byTP {
		for _, c := range ps {
			out[t] = append(out[t], c)
		}
		sortCoverage(out[t])
	}
	return out, nil
}

func sortCoverage(cs []*partitionCoverage) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].Partition < cs[j-1].Partition; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// bar is one bar of a bar chart.
type bar struct {
	Label string
	Value float64
	Note  string // shown after the bar
}

// point is one point of a time series.
type point struct {
	T time.Time
	V float64
}

// series is one line of a time chart.
type series struct {
	Name   string
	Points []point
}

// partitionCount is the topic's partition count at its newest snapshot,
// else the number of partitions dumped.
func (s *Server) partitionCount(ctx context.Context, topic string) (int, error) {
	n := 0
	err := s.selectRows(ctx, "partition count", `SELECT partition_count FROM snapshots WHERE topic = `+sqlString(topic)+` ORDER BY as_of DESC LIMIT 1`, func(r *sql.Rows) error {
		return r.Scan(&n)
	})
	if n == 0 {
		if t, ok := s.engine.Topic(topic); ok {
			n = t.Partitions
		}
	}
	return n, err
}

// shares counts records per partition, as shares of the total.
func (s *Server) shares(ctx context.Context, q string, partitions int) ([]bar, error) {
	counts := map[int64]float64{}
	total := 0.0
	err := s.selectRows(ctx, "partition shares", q, func(r *sql.Rows) error {
		var p sql.NullInt64
		var n float64
		if err := r.Scan(&p, &n); err != nil {
			return err
		}
		if p.Valid {
			counts[p.Int64] = n
			total += n
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for p := range counts {
		partitions = max(partitions, int(p)+1)
	}
	out := make([]bar, partitions)
	for p := range out {
		share := 0.0
		if total > 0 {
			share = counts[int64(p)] / total
		}
		out[p] = bar{Label: fmt.Sprintf("p%d", p), Value: share, Note: fmt.Sprintf("%.1f%% (%s)", share*100, number(counts[int64(p)]))}
	}
	return out, nil
}

// skewBars are the topic's partition shares, and the shares if it were
// keyed by what_if_key over what_if_partitions.
func (s *Server) skewBars(ctx context.Context, o queries.CheckOptions) (now, whatIf []bar, n, whatIfN int, err error) {
	view := queries.QuoteIdent(o.Topic)
	n, err = s.partitionCount(ctx, o.Topic)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	now, err = s.shares(ctx, `SELECT "partition"::BIGINT, count(*)::DOUBLE FROM `+view+` GROUP BY 1`, n)
	if err != nil || o.WhatIfKey == "" {
		return now, nil, n, 0, err
	}
	whatIfN = o.WhatIfPartitions
	if whatIfN <= 0 {
		whatIfN = n
	}
	// The key is DuckDB's own rendering of the parsed expression, never
	// the text of the request (queries.Engine.Expr).
	key, err := s.engine.Expr(ctx, "what_if_key", o.WhatIfKey, o.Topic)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	q := func(key string) string {
		return fmt.Sprintf(`SELECT kafka_partition(%s, %d)::BIGINT, count(*)::DOUBLE FROM %s GROUP BY 1`, key, whatIfN, view)
	}
	whatIf, err = s.shares(ctx, q("("+key+")"), whatIfN)
	if err != nil { // kafka_partition takes text or bytes: cast anything else
		whatIf, err = s.shares(ctx, q("("+key+")::VARCHAR"), whatIfN)
	}
	return now, whatIf, n, whatIfN, err
}

// timeBucket chooses a bucket width that keeps a series under maxPoints
// points over the topic's time span.
func (s *Server) timeBucket(ctx context.Context, view string) (time.Duration, error) {
	const maxPoints = 240
	var lo, hi sql.NullTime
	err := s.selectRows(ctx, "time span", `SELECT min("timestamp"), max("timestamp") FROM `+view, func(r *sql.Rows) error {
		return r.Scan(&lo, &hi)
	})
	if err != nil || !lo.Valid || !hi.Valid {
		return time.Minute, err
	}
	minutes := math.Ceil(hi.Time.Sub(lo.Time).Minutes() / maxPoints)
	for _, step := range []float64{1, 5, 10, 15, 30, 60, 120, 360, 720, 1440, 10080} {
		if minutes <= step {
			return time.Duration(step) * time.Minute, nil
		}
	}
	return time.Duration(minutes) * time.Minute, nil
}

func intervalSQL(d time.Duration) string {
	return fmt.Sprintf("INTERVAL '%d minutes'", int64(d/time.Minute))
}

// timeSeries reads rows of (series key, time, value) into series named
// prefix followed by the key.
func (s *Server) timeSeries(ctx context.Context, what, prefix, q string) ([]series, error) {
	var out []series
	idx := map[string]int{}
	err := s.selectRows(ctx, what, q, func(r *sql.Rows) error {
		var key any
		var t time.Time
		var v float64
		if err := r.Scan(&key, &t, &v); err != nil {
			return err
		}
		name := fmt.Sprint(key)
		if prefix != "" {
			name = prefix + name
		}
		i, ok := idx[name]
		if !ok {
			i = len(out)
			idx[name] = i
			out = append(out, series{Name: name})
		}
		out[i].Points = append(out[i].Points, point{t, v})
		return nil
	})
	return out, err
}

// freshnessSeries counts records per partition per time bucket.
func (s *Server) freshnessSeries(ctx context.Context, topic string) ([]series, time.Duration, error) {
	view := queries.QuoteIdent(topic)
	step, err := s.timeBucket(ctx, view)
	if err != nil {
		return nil, 0, err
	}
	q := fmt.Sprintf(`SELECT "partition", time_bucket(%s, "timestamp") m, count(*)::DOUBLE FROM %s
WHERE "timestamp" IS NOT NULL GROUP BY ALL ORDER BY "partition", m`, intervalSQL(step), view)
	ss, err := s.timeSeries(ctx, "records per minute", "p", q)
	return ss, step, err
}

// duplicateSeries counts, per time bucket, records whose id was seen before.
func (s *Server) duplicateSeries(ctx context.Context, o queries.CheckOptions) ([]series, time.Duration, error) {
	view := queries.QuoteIdent(o.Topic)
	step, err := s.timeBucket(ctx, view)
	if err != nil {
		return nil, 0, err
	}
	id := "key_raw, value_raw"
	if o.ID != "" {
		canon, err := s.engine.Expr(ctx, "id", o.ID, o.Topic)
		if err != nil {
			return nil, 0, err
		}
		id = "(" + canon + ")"
	}
	q := fmt.Sprintf(`WITH d AS (
  SELECT "timestamp" ts, row_number() OVER (PARTITION BY %s ORDER BY "timestamp", "partition", "offset") rn FROM %s
)
SELECT 'duplicates', time_bucket(%s, ts) b, count(*) FILTER (WHERE rn > 1)::DOUBLE FROM d WHERE ts IS NOT NULL GROUP BY ALL ORDER BY b`,
		id, view, intervalSQL(step))
	ss, err := s.timeSeries(ctx, "duplicates over time", "", q)
	return ss, step, err
}

// lagBars is each group's lag per partition at the newest snapshot that
// has the group.
func (s *Server) lagBars(ctx context.Context, topic string) ([]bar, error) {
	var out []bar
	q := `SELECT o.group_id, o."partition", greatest(p.high_watermark - o.committed_offset, 0)::DOUBLE
FROM group_offsets o JOIN partitions p ON p.snapshot_id = o.snapshot_id AND p.topic = o.topic AND p."partition" = o."partition"
WHERE o.topic = ` + sqlString(topic) + `
QUALIFY o.as_of = max(o.as_of) OVER (PARTITION BY o.group_id)
ORDER BY 1, 2`
	err := s.selectRows(ctx, "group lag", q, func(r *sql.Rows) error {
		var g string
		var p int32
		var lag float64
		if err := r.Scan(&g, &p, &lag); err != nil {
			return err
		}
		out = append(out, bar{Label: fmt.Sprintf("%s · p%d", g, p), Value: lag, Note: number(lag)})
		return nil
	})
	return out, err
}

// number writes a count with thousands separators.
func number(f float64) string {
	if f != math.Trunc(f) || math.Abs(f) >= 1e15 {
		return fmt.Sprintf("%.4g", f)
	}
	s := fmt.Sprintf("%d", int64(math.Abs(f)))
	var b strings.Builder
	if f < 0 {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
