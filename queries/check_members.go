package queries

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

func init() {
	register(&Check{
		Name:      "members",
		ReadsCuts: true,
		Summary:   "a group's members over time, from its commit log (else the cuts): warns when a member with a client id the group had not had joined, with the partitions it held and the records it committed past",
		Order:     57,
		Options:   []string{"group"},
		Needs: func(o CheckOptions) []string {
			if o.Group == "" {
				return []string{"group"}
			}
			return nil
		},
		NotOn: map[string]string{"spark": "the group's commit log and member history are read by DuckDB only; run it without --engine"},
		run:   checkMembers,
	})
}

// hasCommitLog reports whether the engine reads the group coordinator's
// log (grouplog.go): the folder holds a dump of __consumer_offsets and the
// engine is DuckDB (the log views are DuckDB's only).
func (e *Engine) hasCommitLog() bool {
	if e.opts.Remote != nil {
		return false
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.hasOffsetsLogLocked()
}

// followHint is what keeps a group's history whole from now on.
const followHint = "topicsnap dump --follow --topic __consumer_offsets keeps it from now on"

func checkMembers(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	if e.hasCommitLog() {
		sum, err := e.run(ctx, "members_summary", sqlData{}, o.Group)
		if err != nil {
			return nil, err
		}
		if s := sum[0]; asInt(s.Get("generations")) > 0 {
			return membersFromLog(ctx, e, o, s)
		}
	}
	return membersFromCuts(ctx, e, o)
}

// newClients lists the distinct client ids of the members marked new.
func newClients(rows []Row) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rows {
		if b, ok := r.Get("new_client_id").(bool); ok && b {
			c, _ := r.Get("client_id").(string)
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// stamp writes a time the rows hold (nil: "-").
func stamp(v any) string {
	if t, ok := v.(time.Time); ok {
		return FormatTime(t)
	}
	return "-"
}

// newcomerText says who a new member was, what it held and what it committed past.
func newcomerText(r Row, joined, left string) string {
	c, _ := r.Get("client_id").(string)
	h := Display("host", r.Get("host")) // 10.20.3.40, not the client's /10.20.3.40
	l := "still in the group"
	if s := stamp(r.Get(left)); s != "-" {
		l = "left by " + s
	}
	if r.Get("records_committed_past") == nil {
		if p := r.Get("partitions"); p != nil {
			return fmt.Sprintf("%s on %s joined %s (%s), held partitions %s (records committed past not known)",
				c, h, stamp(r.Get(joined)), l, Display("partitions", p))
		}
		return fmt.Sprintf("%s on %s joined %s (partitions held and records committed past not known)", c, h, stamp(r.Get(joined)))
	}
	return fmt.Sprintf("%s on %s joined %s (%s), held partitions %s and committed past %s records",
		c, h, stamp(r.Get(joined)), l, Display("partitions", r.Get("partitions")), FormatNumber(float64(asInt(r.Get("records_committed_past")))))
}

func membersFromLog(ctx context.Context, e *Engine, o CheckOptions, s Row) (*Report, error) {
	rows, err := e.run(ctx, "members", views(o.Topic), o.Group, o.Topic)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		rows[i].Set("kind", "member")
	}
	news := newClients(rows)
	r := &Report{Summary: NewRow(), Rows: rows}
	from := stamp(s.Get("history_from"))
	r.Summary.Set("group", o.Group).Set("source", "commit log").Set("members", int64(len(rows))).
		Set("new_client_ids", int64(len(news))).Set("generations", asInt(s.Get("generations"))).
		Set("history_from", s.Get("history_from")).Set("history_to", s.Get("history_to"))
	r.Tables = append(r.Tables, rowsTable("Members, from the group's commit log", rows))
	caveat := fmt.Sprintf("the log holds the group's records from %s (it is compacted: older generations and commits may be gone, so this history starts there; %s)", from, followHint)
	if b, _ := s.Get("consumer_protocol").(bool); b {
		// KIP-848: no generation records, a member epoch per member.
		caveat += "; the group uses the consumer protocol (KIP-848), whose generations are each member's epochs: a member left at the tombstone of its assignment"
		r.Summary.Set("protocol", "consumer")
		if slices.ContainsFunc(rows, func(x Row) bool { return x.Get("partitions") == nil }) {
			caveat += fmt.Sprintf("; its assignments name topics by id, and the folder does not give one id for topic %s (no cut of it records one and no commit names one, or it was made again): the partitions held and the records committed past are not known", o.Topic)
		}
	}
	if b, _ := s.Get("share_protocol").(bool); b {
		caveat += "; the group is a share group (KIP-932), whose generations are each member's epochs: a member left at the tombstone of its assignment; a share group commits no offsets (its members acknowledge records), so the records committed past are not known from the log"
		r.Summary.Set("protocol", "share")
		if slices.ContainsFunc(rows, func(x Row) bool { return x.Get("partitions") == nil }) {
			caveat += fmt.Sprintf("; its assignments name topics by id, and neither its share state records nor the folder give one id for topic %s: the partitions held are not known", o.Topic)
		}
	}
	if b, _ := s.Get("streams_protocol").(bool); b {
		caveat += "; the group is a Kafka Streams group (KIP-1071), whose generations are each member's epochs: a member left at the tombstone of its assignment; its members hold tasks, and the partitions held are those its active tasks read by the group's topology in the log, and a commit is the member's whose active task read the partition at the commit"
		r.Summary.Set("protocol", "streams")
		if slices.ContainsFunc(rows, func(x Row) bool { return x.Get("partitions") == nil }) {
			caveat += "; the log keeps no topology record of the group before some of its assignments (compacted away, or before the dump), or their tasks were too many to map (group_generations.assignment_error says which): those members' partitions and records committed past are not known"
		}
	}
	// A record of the log that did not decode may be a generation or a
	// commit of the group: the history is then not whole, and a member it
	// would show is not judged (never ok).
	undecodable, where, err := logUndecodable(ctx, e, o.Group)
	if err != nil {
		return nil, err
	}
	r.Summary.Set("undecodable_log_records", undecodable)
	if undecodable > 0 {
		caveat += fmt.Sprintf("; not judged: %s of the log could not be decoded and may be the group's (a generation or a commit this history lacks: %s)",
			plural(undecodable, "record", "records"), where)
	}
	var who []string
	for _, x := range rows {
		if b, ok := x.Get("new_client_id").(bool); ok && b {
			who = append(who, newcomerText(x, "joined_at", "left_at"))
		}
	}
	if len(news) > 0 {
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("group %s had %s with a client id it had not had before (%s): %s; %s",
			o.Group, plural(int64(len(who)), "member", "members"), strings.Join(news, ", "), strings.Join(who, "; "), caveat)
		return r, nil
	}
	r.Status = StatusOK
	r.Message = fmt.Sprintf("group %s: %s over %s, no client id joined that its first generation in the log had not had; %s",
		o.Group, plural(int64(len(rows)), "member", "members"), plural(asInt(s.Get("generations")), "generation", "generations"), caveat)
	if len(rows) == 0 {
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("group %s: the log keeps %s of it, none with a member; %s",
			o.Group, plural(asInt(s.Get("generations")), "generation", "generations"), caveat)
	}
	if undecodable > 0 {
		r.Status = StatusWarn
	}
	return r, nil
}

func membersFromCuts(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	sum, err := e.run(ctx, "members_cuts_summary", sqlData{}, o.Group, o.Topic)
	if err != nil {
		return nil, err
	}
	s := sum[0]
	r := &Report{Summary: NewRow(), Rows: []Row{}}
	log := "the folder holds no dump of __consumer_offsets"
	undecodable := int64(-1) // no log to count in
	if e.hasCommitLog() {
		log = "the dump of __consumer_offsets keeps no generation of this group (compacted away, or before the dump)"
		// A record that did not decode may be the generation the log
		// lacks: "keeps none" would hide it.
		var where string
		var err error
		undecodable, where, err = logUndecodable(ctx, e, o.Group)
		if err != nil {
			return nil, err
		}
		if undecodable > 0 {
			log = fmt.Sprintf("the dump of __consumer_offsets keeps no generation of this group that decodes: %s of it could not be decoded and may be the group's (%s)",
				plural(undecodable, "record", "records"), where)
		}
	}
	r.Summary.Set("group", o.Group).Set("source", "cuts").Set("cuts", asInt(s.Get("cuts_with_group")))
	if undecodable >= 0 {
		r.Summary.Set("undecodable_log_records", undecodable)
	}
	if asInt(s.Get("cuts_with_group")) == 0 {
		r.Status = StatusWarn
		r.Summary.Set("members", int64(0)).Set("new_client_ids", int64(0)).Set("generations", nil).Set("history_from", nil)
		judge := "nothing to judge"
		if undecodable > 0 {
			judge = "not judged"
		}
		r.Message = fmt.Sprintf("group %s: no cut of %s saw it and %s: %s", o.Group, o.Topic, log, judge)
		if !e.hasCommitLog() {
			r.Message += " (topicsnap dump --topic __consumer_offsets reads the group's own log)"
		}
		return r, nil
	}
	rows, err := e.run(ctx, "members_cuts", sqlData{}, o.Group, o.Topic)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		rows[i].Set("kind", "member")
	}
	news := newClients(rows)
	r.Rows = rows
	r.Summary.Set("members", int64(len(rows))).Set("new_client_ids", int64(len(news))).Set("generations", nil).
		Set("history_from", s.Get("first_cut")).Set("history_to", s.Get("last_cut"))
	r.Tables = append(r.Tables, rowsTable("Members, as the cuts saw them", rows))
	caveat := fmt.Sprintf("from %s between %s and %s only, as %s: a member that joined and left between two cuts is not seen, joins and leaves are known to within a cut, generations are not known, and records committed across a change of holder are attributed to no one",
		plural(asInt(s.Get("cuts_with_group")), "cut", "cuts"), stamp(s.Get("first_cut")), stamp(s.Get("last_cut")), log)
	var who []string
	for _, x := range rows {
		if b, ok := x.Get("new_client_id").(bool); ok && b {
			who = append(who, newcomerText(x, "first_seen_at", "left_at"))
		}
	}
	// Never ok: what happened between the cuts is not seen.
	r.Status = StatusWarn
	if len(news) > 0 {
		r.Message = fmt.Sprintf("group %s had %s with a client id it had not had before (%s): %s; %s",
			o.Group, plural(int64(len(who)), "member", "members"), strings.Join(news, ", "), strings.Join(who, "; "), caveat)
		return r, nil
	}
	r.Message = fmt.Sprintf("group %s: %s seen, none with a client id its first cut had not had; %s", o.Group, plural(int64(len(rows)), "member", "members"), caveat)
	return r, nil
}

// logUndecodable counts the records of the group coordinator's log that
// did not decode and may be group's (members_undecodable), and says where
// they are and why the first did not decode.
func logUndecodable(ctx context.Context, e *Engine, group string) (int64, string, error) {
	und, err := e.run(ctx, "members_undecodable", sqlData{}, group)
	if err != nil {
		return 0, "", err
	}
	n := asInt(und[0].Get("records"))
	if n == 0 {
		return 0, "", nil
	}
	at, _ := und[0].Get("at").(string)
	where := "at " + at
	if n > 5 {
		where = "the first at " + at
	}
	why, _ := und[0].Get("first_error").(string)
	return n, fmt.Sprintf("%s of %s, the first: %s; decode_error in group_log says why for each", where, offsetsTopic, why), nil
}
