package restore

import (
	"fmt"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/internal/units"
)

// Partition is what a restore does to one partition.
type Partition struct {
	Partition int32
	From      int64 // first source offset read in this run
	Until     int64 // exclusive end in the source
	Resumed   bool  // From is the progress a previous run committed
	Records   int64 // data records produced (to produce, in a dry run)
	Bytes     int64 // their key and value bytes
	Markers   int64 // transaction markers left out
	Aborted   int64 // records of aborted transactions left out
	// OpenAt is the source offset of a transaction still open at the last
	// snapshot (no marker in Dir yet), where this partition stops as a
	// read_committed consumer would; -1 when there is none.
	OpenAt int64
}

// Summary of one run.
type Summary struct {
	Source, Target string
	DryRun         bool
	Created        bool // the target was created (would be, in a dry run)
	CreatePlan     string
	Partitions     []Partition
	Records, Bytes int64
	Markers        int64
	Aborted        int64
	Transactions   int
	Elapsed        time.Duration
}

func (s Summary) String() string {
	if s.DryRun {
		var b strings.Builder
		for _, p := range s.Partitions {
			fmt.Fprintf(&b, "partition %d: source offsets [%d,%d): %d records", p.Partition, p.From, p.Until, p.Records)
			if p.Resumed {
				b.WriteString(" (after the progress a previous restore committed)")
			}
			if p.OpenAt >= 0 {
				fmt.Fprintf(&b, " (stops at offset %d: a transaction open at the last snapshot)", p.OpenAt)
			}
			b.WriteString("\n")
		}
		what := "existing topic " + s.Target
		if s.Created {
			what = "new topic " + s.Target + " (" + s.CreatePlan + ")"
		}
		fmt.Fprintf(&b, "dry run: would restore %d records (%s) of %s into %s from %d partitions, leaving out %d markers and %d records of aborted transactions; nothing produced",
			s.Records, units.Bytes(s.Bytes), s.Source, what, len(s.Partitions), s.Markers, s.Aborted)
		return b.String()
	}
	rate := 0.0
	if s.Elapsed > 0 {
		rate = float64(s.Records) / s.Elapsed.Seconds()
	}
	created := ""
	if s.Created {
		created = " (created)"
	}
	out := fmt.Sprintf("restored %d records (%s) of %s into %s%s from %d partitions in %d transactions in %.1fs, %.0f records/s, leaving out %d markers and %d records of aborted transactions",
		s.Records, units.Bytes(s.Bytes), s.Source, s.Target, created, len(s.Partitions), s.Transactions, s.Elapsed.Seconds(), rate, s.Markers, s.Aborted)
	if s.Records == 0 {
		out += ": " + s.whyNothing()
	}
	return out
}

// whyNothing says why a restore produced no record.
func (s Summary) whyNothing() string {
	resumed := 0
	var open []string
	for _, p := range s.Partitions {
		if p.Resumed {
			resumed++
		}
		if p.OpenAt >= 0 {
			open = append(open, fmt.Sprint(p.Partition))
		}
	}
	switch {
	case len(s.Partitions) == 0:
		return "no partition to restore"
	case len(open) > 0:
		// Not "already restored": the records after the transaction are
		// still to come, and deleting the progress would write the ones
		// before it again.
		word := "partition"
		if len(open) > 1 {
			word = "partitions"
		}
		return fmt.Sprintf("what is left to restore starts at a transaction still open at the last snapshot (%s %s), so nothing after it is produced yet; dump the topic again once it has ended, then restore again", word, strings.Join(open, ", "))
	case resumed == len(s.Partitions):
		return fmt.Sprintf("everything was already restored (the progress group %s has committed every partition to the end; restore into another --to-topic, or delete that group to restore again)", ID(s.Target))
	default:
		return "the snapshot holds no data record in the range asked (--from, --until)"
	}
}
