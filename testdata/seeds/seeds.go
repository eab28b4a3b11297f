package seeds

import (
	"math/rand/v2"
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
