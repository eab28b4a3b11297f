package seeds

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"time"
)

// Header is one record header.
type Header struct {
	Key   string
	Value []byte
}

// Record is one record to produce: its topic and partition (always set), key,
// JSON value, the timestamp to set on it (create time, standing in for the
// broker's arrival time) and headers.
type Record struct {
	Topic     string
	Partition int32
	Key       []byte
	Value     []byte
	Timestamp time.Time
	Headers   []Header
}

// TimeLayout is the layout of every time inside a JSON value: RFC 3339 with
// milliseconds, always in UTC ("2026-09-14T12:43:49.250Z").
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

func formatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ms truncates to whole milliseconds, the resolution of a Kafka timestamp.
func ms(t time.Time) time.Time { return t.Truncate(time.Millisecond) }

// between returns a duration uniformly in [lo, hi], in whole milliseconds.
func between(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	lom, him := lo.Milliseconds(), hi.Milliseconds()
	return time.Duration(lom+rng.Int64N(him-lom+1)) * time.Millisecond
}

// pick returns an index into weights, chosen with probability proportional
// to its weight.
func pick(rng *rand.Rand, weights []float64) int {
	var total float64
	for _, w := range weights {
		total += w
	}
	x := rng.Float64() * total
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

// round rounds half away from zero to an int.
func round(x float64) int {
	if x < 0 {
		return -int(-x + 0.5)
	}
	return int(x + 0.5)
}

// sortByTime orders s by timestamp, then partition, keeping generation order
// for full ties. It sorts indices rather than moving the (large) elements
// around, which a stable sort of the elements themselves would do a lot of.
func sortByTime[T any](s []T, ts func(*T) time.Time, part func(*T) int32) {
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := ts(&s[a]).Compare(ts(&s[b])); c != 0 {
			return c
		}
		if c := cmp.Compare(part(&s[a]), part(&s[b])); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	sorted := make([]T, len(s))
	for i, j := range idx {
		sorted[i] = s[j]
	}
	copy(s, sorted)
}
