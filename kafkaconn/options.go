package kafkaconn

import (
	"strconv"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// Position is a parsed --from or --until of a dump or a restore: its word
// (earliest, now), an offset, or a time.
type Position struct {
	Text   string // as given
	Word   bool   // the word, or empty: no bound
	Offset int64  // when !Word and At is zero
	At     time.Time
}

// IsOffset: the position is an offset.
func (p Position) IsOffset() bool { return !p.Word && p.At.IsZero() }

// IsTime: the position is a time.
func (p Position) IsTime() bool { return !p.Word && !p.At.IsZero() }

// ParsePosition parses the value v of flag: word (or empty), an offset
// (0 or more) or an RFC3339 time; anything else is ErrBadOption, naming flag.
func ParsePosition(flag, v, word string) (Position, error) {
	if v == "" || v == word {
		return Position{Text: v, Word: true}, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			// Kafka's offsets start at 0; a negative one would be recorded
			// as offsets Kafka deleted, which it never had.
			return Position{}, exit.Errorf(ErrBadOption, "%s %s: an offset is 0 or more; use %s, an offset, or an RFC3339 time", flag, v, word)
		}
		return Position{Text: v, Offset: n}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return Position{Text: v, At: t}, nil
	}
	return Position{}, exit.Errorf(ErrBadOption, "%s %q: use %s, an offset, or an RFC3339 time such as 2026-09-14T08:47:00Z", flag, v, word)
}

// ParsePartitions reads a --partitions value, "0,3-5" into a set; nil means all.
func ParsePartitions(s string) (map[int32]bool, error) {
	ps, err := catalog.ParsePartitions(s)
	if err != nil {
		return nil, exit.Errorf(ErrBadOption, "--partitions %w", err)
	}
	return ps, nil
}
