package queries

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/internal/shell"
)

func init() {
	register(&Check{
		Name:      "reset",
		ReadsCuts: true,
		Summary:   "what a reset of a group by time would re-read, per partition and by the member that had committed it, before anyone runs it",
		Order:     55,
		Options:   []string{"group", "to_time", "partitions", "id", "limit"},
		Needs: func(o CheckOptions) []string {
			var needs []string
			if o.Group == "" {
				needs = append(needs, "group")
			}
			if o.ToTime.IsZero() {
				needs = append(needs, "to_time")
			}
			return needs
		},
		Plan: &Plan{
			Help:  "the partitions' target offsets as kafka-consumer-groups.sh --reset-offsets --from-file reads them (topic,partition,offset)",
			Write: writeResetPlan,
		},
		run: checkReset,
	})
}

// writeResetPlan writes the partition rows of a reset report as the CSV
// kafka-consumer-groups.sh --reset-offsets --from-file reads (topic,
// partition, offset; no header).
func writeResetPlan(w io.Writer, r *Report) error {
	var b strings.Builder
	for _, row := range r.Rows {
		if row.Get("kind") != "partition" {
			continue
		}
		fmt.Fprintf(&b, "%s,%v,%v\n", r.Topic, row.Get("partition"), row.Get("target_offset"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ResetTimeLayout is how the reset check writes --to-datetime for
// kafka-consumer-groups.sh (which reads milliseconds and a zone).
const ResetTimeLayout = "2006-01-02T15:04:05.000Z07:00"

func checkReset(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	var parts any // NULL: every partition the group committed on
	if len(o.Partitions) > 0 {
		b, _ := json.Marshal(o.Partitions)
		parts = string(b)
	}
	// A commit at a cut of an old topic of the name (deleted and made
	// again) is not this topic's: only today's topic's cuts count.
	rows, err := e.run(ctx, "reset", d, o.Topic, o.Group, o.ToTime.UTC(), parts, e.firstCurrentCut(o.Topic))
	if err != nil {
		return nil, err
	}
	r := &Report{Summary: NewRow()}
	if len(rows) == 0 {
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("group %s has no committed offset on %s at any cut (or none on the partitions asked): nothing to judge", o.Group, o.Topic)
		share, err := e.run(ctx, "reset_share", d, o.Topic, o.Group)
		if err != nil {
			return nil, err
		}
		if len(share) > 0 {
			// Not "no committed offset" as of a consumer that never
			// committed: a share group has none to reset from.
			r.Message = fmt.Sprintf("group %s is a share group (KIP-932) at %s of %s: it commits no offsets, so what a reset would re-read is not judged here "+
				"(a reset of a share group moves its start offset, and every record from there on is delivered again; check lag gives Kafka's count of what it has not acknowledged)",
				o.Group, plural(int64(len(share)), "cut", "cuts"), o.Topic)
		}
		r.Summary.Set("partitions", int64(0)).Set("records_to_reread", int64(0))
		return r, nil
	}
	type rng struct {
		Partition int32 `json:"partition"`
		Target    int64 `json:"target_offset"`
		Committed int64 `json:"committed_offset"`
	}
	var ranges []rng
	var total int64
	var inexact []int64
	var asOf any
	have := map[int64]bool{}
	var noOffset []int32
	for i := range rows {
		x := &rows[i]
		x.Set("kind", "partition")
		p, target, committed := asInt(x.Get("partition")), asInt(x.Get("target_offset")), asInt(x.Get("committed_offset"))
		have[p] = true
		asOf = x.Get("as_of")
		if x.Get("committed_offset") == nil {
			// Kafka answered no committed offset (-1): nothing to replay
			// is known, said below, never taken as a position.
			noOffset = append(noOffset, int32(p))
			continue
		}
		total += asInt(x.Get("records"))
		if b, ok := x.Get("target_exact").(bool); ok && !b {
			inexact = append(inexact, p)
		}
		if committed > target {
			ranges = append(ranges, rng{int32(p), target, committed})
		}
	}
	notCommitted := noOffset
	for _, p := range o.Partitions {
		if !have[int64(p)] {
			notCommitted = append(notCommitted, p)
		}
	}
	rb, _ := json.Marshal(ranges)
	if ranges == nil {
		rb = []byte("[]")
	}
	// With the group's commit log, each record goes to the member that
	// held the partition when the commit past it was made; the cuts
	// attribute only what the log does not.
	membersSQL, unknown := "reset_members", "an unknown member (no cut covers those commits)"
	if e.hasCommitLog() {
		membersSQL, unknown = "reset_members_log", "an unknown member (neither the commit log nor a cut covers those commits)"
	}
	members, err := e.run(ctx, membersSQL, d, o.Topic, o.Group, string(rb))
	if err != nil {
		return nil, err
	}
	var by []string
	for i := range members {
		m := &members[i]
		m.Set("kind", "member")
		who := unknown
		if c, ok := m.Get("client_id").(string); ok {
			who = c
		}
		by = append(by, fmt.Sprintf("%s by %s", FormatNumber(float64(asInt(m.Get("records")))), who))
	}
	r.Summary.Set("group", o.Group).Set("to_time", o.ToTime.UTC()).Set("as_of", asOf).
		Set("partitions", int64(len(rows))).Set("records_to_reread", total)
	var undecodable int64
	if membersSQL == "reset_members_log" {
		r.Summary.Set("attributed_by", "commit log, then cuts")
		// A record of the log that did not decode may be a generation or
		// a commit of the group: the attribution is then not whole.
		und, err := e.run(ctx, "members_undecodable", sqlData{}, o.Group)
		if err != nil {
			return nil, err
		}
		undecodable = asInt(und[0].Get("records"))
		r.Summary.Set("undecodable_log_records", undecodable)
	}
	if o.ID != "" {
		d.ID, err = e.Expr(ctx, "id", o.ID, o.Topic)
		if err != nil {
			return nil, err
		}
		ids, err := e.run(ctx, "reset_ids", d, string(rb))
		if err != nil {
			return nil, err
		}
		r.Summary.Set("ids_reread", asInt(ids[0].Get("ids_reread"))).Set("ids_already_read", asInt(ids[0].Get("ids_already_read")))
	}
	ps := make([]string, len(rows))
	for i := range rows {
		ps[i] = fmt.Sprint(asInt(rows[i].Get("partition")))
	}
	r.Summary.Set("command", resetCommand(e.brokersOf(o.Topic), o.Group, o.Topic, ps, o.ToTime))
	r.Rows = append(rows, members...)
	r.Tables = append(r.Tables, rowsTable("Partitions", rows), rowsTable("Re-read records by the member that had committed them", members))
	switch {
	case len(noOffset) == len(rows):
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("group %s has no committed offset on %s at the cut (Kafka answered -1; kafka-consumer-groups shows \"-\"): what a reset would re-read is not known",
			o.Group, plural(int64(len(rows)), "partition", "partitions"))
	case total == 0:
		r.Status = StatusOK
		r.Message = fmt.Sprintf("a reset of %s to %s would re-read nothing on %s", o.Group, FormatTime(o.ToTime), plural(int64(len(rows)), "partition", "partitions"))
	default:
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("a reset of %s to %s would re-read %s records on %s: %s", o.Group, FormatTime(o.ToTime),
			FormatNumber(float64(total)), plural(int64(len(rows)), "partition", "partitions"), strings.Join(by, ", "))
	}
	if undecodable > 0 && total > 0 {
		r.Message += fmt.Sprintf("; who committed them is not judged whole: %s of the group's commit log could not be decoded (a generation or a commit the attribution lacks; decode_error in group_log says why)",
			plural(undecodable, "record", "records"))
	}
	if len(inexact) > 0 {
		r.Status = StatusWarn
		r.Message += fmt.Sprintf("; on partitions %s the snapshot does not reach back to the log start, so the broker may choose an earlier target", partitionList(inexact))
	}
	if len(notCommitted) > 0 {
		r.Status = StatusWarn
		if len(noOffset) < len(rows) { // else the verdict said it
			r.Message += fmt.Sprintf("; the group had no committed offset on partitions %s at the cut", partitionList(notCommitted))
		}
		r.Summary.Set("partitions_without_offsets", notCommitted)
	}
	return r, nil
}

// brokersOf is the bootstrap list the topic's latest cut recorded.
func (e *Engine) brokersOf(topic string) []string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var best []string
	var at time.Time
	for _, s := range e.snaps {
		if s.Topic == topic && !s.AsOf.Before(at) && len(s.Brokers) > 0 {
			best, at = s.Brokers, s.AsOf
		}
	}
	// A cut records each broker as ID=HOST:PORT; --bootstrap-server takes
	// HOST:PORT.
	out := make([]string, 0, len(best))
	for _, b := range best {
		if id, addr, ok := strings.Cut(b, "="); ok && isDigits(id) {
			b = addr
		}
		out = append(out, b)
	}
	return out
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// resetCommand is the kafka-consumer-groups.sh command line that performs
// the reset the check describes (with --dry-run: it shows, then --execute).
func resetCommand(brokers []string, group, topic string, parts []string, to time.Time) string {
	bs := "BROKERS"
	if len(brokers) > 0 {
		bs = strings.Join(brokers, ",")
	}
	return fmt.Sprintf("kafka-consumer-groups.sh --bootstrap-server %s --group %s --topic %s --reset-offsets --to-datetime %s --dry-run",
		ShellQuote(bs), ShellQuote(group), ShellQuote(topic+":"+strings.Join(parts, ",")), to.UTC().Format(ResetTimeLayout))
}

// ShellQuote quotes s for a POSIX shell when it needs it (package
// internal/shell): the commands topicsnap prints for users to run.
func ShellQuote(s string) string { return shell.Quote(s) }

// partitionList writes partition numbers in a message as the tables write
// a list of them ([0,1,2]).
func partitionList[T int32 | int64](ps []T) string {
	l := make([]any, len(ps))
	for i, p := range ps {
		l[i] = p
	}
	return Display("partitions", l)
}
