package server

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/topicsnap/topicsnap/internal/chart"
	"github.com/topicsnap/topicsnap/internal/display"
	"github.com/topicsnap/topicsnap/queries"
)

// selectRows runs one read-only query through the locked engine and calls
// scan for each row.
func (s *Server) selectRows(ctx context.Context, what, q string, scan func(*sql.Rows) error) error {
	return s.selectRowsArgs(ctx, what, q, nil, scan)
}

// selectRowsArgs is selectRows with values bound to q's parameters.
func (s *Server) selectRowsArgs(ctx context.Context, what, q string, args []any, scan func(*sql.Rows) error) error {
	rows, err := s.engine.Query(ctx, q, args...)
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

// partitionCoverage is what the catalog holds of one partition.
type partitionCoverage struct {
	Partition     int32
	Covered       []chart.Span // merged file ranges
	Lost          []chart.Span
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
		if n := len(c.Covered); n > 0 && c.Covered[n-1].To+1 >= first {
			c.Covered[n-1].To = max(c.Covered[n-1].To, last)
		} else {
			c.Covered = append(c.Covered, chart.Span{From: first, To: last})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = s.selectRows(ctx, "lost ranges", `SELECT topic, "partition", from_offset, to_offset FROM lost_ranges ORDER BY ALL`, func(r *sql.Rows) error {
		var t string
		var p int32
		var sp chart.Span
		if err := r.Scan(&t, &p, &sp.From, &sp.To); err != nil {
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

// drawn is a topic's coverage as chart.Coverage draws it.
func drawn(cs []*partitionCoverage) []chart.Partition {
	out := make([]chart.Partition, len(cs))
	for i, c := range cs {
		out[i] = chart.Partition{Partition: c.Partition, Covered: c.Covered, Lost: c.Lost, LogStart: c.LogStart, HighWatermark: c.HighWatermark}
	}
	return out
}

func sortCoverage(cs []*partitionCoverage) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].Partition < cs[j-1].Partition; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// number writes a count with thousands separators (display.Number:
// the pages' one number format).
func number(f float64) string { return display.Number(f) }

// toInt64 is a scanned integer of any width as an int64.
func toInt64(v any) (int64, error) {
	switch x := v.(type) {
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case int:
		return int64(x), nil
	}
	return 0, fmt.Errorf("want an integer, got %T", v)
}
