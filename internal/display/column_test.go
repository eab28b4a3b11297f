package display

import (
	"testing"
	"time"
)

func TestColumn(t *testing.T) {
	cases := []struct {
		column string
		v      any
		want   string
	}{
		{"records", int64(37789), "37,789"},
		{"records", int64(7404), "7,404"},
		{"misplaced_records", int64(841306), "841,306"},
		{"records", int64(12), "12"},
		{"bytes", int64(-4687108), "-4,687,108"},
		{"max_staleness_seconds", 6.65746e+06, "77d 1h"},
		{"max_lag_seconds", 6.68152e+06, "77d 7h"},
		{"seconds_between", 199.96999979019165, "3m 20s"},
		{"seconds", 1830.19, "30m 30s"},
		{"staleness_seconds", 0.116, "116ms"},
		{"lag_seconds", int64(0), "0s"},
		{"silence_seconds", 12.54, "12.5s"},
		{"retention_headroom_seconds", 18000.0, "5h 0m"},
		{"min_retention_headroom_seconds", nil, "NULL"},
		{"share", 0.1656, "16.56%"},
		{"fair_share", 0.041666, "4.17%"},
		{"duplicate_share", 0.0032, "0.32%"},
		{"share", 0.0007, "0.07%"},
		{"share", 1.0, "100%"},
		{"share_of_missing", 0.9831, "98.31%"},
		{"share_lag_records", int64(11), "11"},
		{"share_groups", int64(2), "2"},
		{"share_lag_unknown_partitions", int64(0), "0"},
		{"hosts", []any{"/10.20.3.40", "/10.20.3.41"}, "10.20.3.40, 10.20.3.41"},
		{"host", "/10.20.3.40", "10.20.3.40"},
		{"first_offset", int64(1234567), "1234567"},
		{"partition", int64(23), "23"},
		{"producer_epoch", int64(12000), "12000"},
		{"producer_id", int64(1000001), "1000001"},
		{"ratio", 1234.5678, "1,235"},
		{"ratio", 12.345678, "12.35"},
		{"ratio", 0.12345, "0.1235"},
		{"key", "AP-18", "AP-18"},
		{"hot", false, "false"},
		{"value", []byte("a\x00"), `a\x00`},
		{"as_of", time.Date(2026, 7, 16, 11, 21, 0, 0, time.UTC), "2026-07-16 11:21:00Z"},
		{"headers", []any{map[string]any{"key": "ct", "value": []byte("application/json")}}, `[{"key":"ct","value":"application/json"}]`},
	}
	for _, c := range cases {
		if got := Column(c.column, c.v); got != c.want {
			t.Errorf("Column(%q, %#v) = %q, want %q", c.column, c.v, got, c.want)
		}
	}
}
