package server

import (
	"context"
	"database/sql"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/internal/chart"
	"github.com/topicsnap/topicsnap/internal/display"
)

// The membership history of a consumer group (queries' group_history and
// group_commits tables): GET /history?topic=T&group=G draws, per partition,
// who held it from cut to cut and how far their commits moved the group;
// GET /api/history?topic=T&group=G is the same as JSON. Without a group,
// both list the groups that have a history.
//
// Both read queries' group_history view, which answers a (topic, group)
// from the group's own log where the folder holds a dump of
// __consumer_offsets that has it (every join and leave it holds, not only
// what the cuts saw; source "commit log"), with from when that history is
// complete (its coverage column, from group_log_coverage), and from the
// cuts elsewhere: the page, the API, notebooks and SQL give one answer.
// Either way the page draws the group's lag on the topic over the time the
// cuts cover (lag_at at evenly spaced moments).

// historyRun is one row of group_history.
type historyRun struct {
	Partition   int32      `json:"partition"`
	MemberID    string     `json:"member_id"`
	ClientID    string     `json:"client_id"`
	Host        string     `json:"host"`
	FromAsOf    time.Time  `json:"from_as_of"`
	ToAsOf      time.Time  `json:"to_as_of"`
	UntilAsOf   *time.Time `json:"until_as_of"`
	Cuts        int64      `json:"cuts"`
	FirstOffset *int64     `json:"first_committed_offset"`
	LastOffset  *int64     `json:"last_committed_offset"`
	// FromComplete: from the commit log, false when the log is not
	// complete at the run's start (the member may have held it earlier).
	FromComplete *bool `json:"from_complete,omitempty"`
}

// historyGroup names a group with a history on a topic.
type historyGroup struct {
	Topic string `json:"topic"`
	Group string `json:"group_id"`
	Cuts  int64  `json:"cuts"`
	Link  string `json:"-"`
}

type historyView struct {
	Topic, Group string
	Groups       []historyGroup
	Runs         []historyRun
	Members      []historyMember
	Chart        template.HTML
	// Source is where the runs come from: "cuts" or "commit log";
	// Coverage says from when the log's history is complete.
	Source   string
	Coverage []string
	// LagChart draws lag_at over the cuts' time; LagNotes are the reasons
	// lag_at gave for moments it could not answer.
	LagChart template.HTML
	LagNotes []string
}

// historyMember is one member in the legend, with what its commits moved.
type historyMember struct {
	ClientID, Host, Class string
	Partitions            int // runs: a partition held from one cut to another
	Committed             int64
}

func (s *Server) historyGroups(ctx context.Context) ([]historyGroup, error) {
	out := []historyGroup{}
	err := s.selectRows(ctx, "group history", `SELECT topic, group_id, count(DISTINCT from_snapshot_id) FROM group_history
  WHERE topic IS NOT NULL GROUP BY ALL ORDER BY ALL`,
		func(r *sql.Rows) error {
			var g historyGroup
			if err := r.Scan(&g.Topic, &g.Group, &g.Cuts); err != nil {
				return err
			}
			g.Link = "/history?" + url.Values{"topic": {g.Topic}, "group": {g.Group}}.Encode()
			out = append(out, g)
			return nil
		})
	return out, err
}

// historyRuns reads a group's runs on topic from group_history, and where
// they come from ("cuts" or "commit log") with the log's coverage notes; a
// run from the log still going ends at its last record, one that ended at
// the generation that took the partition away.
func (s *Server) historyRuns(ctx context.Context, topic, group string) (runs []historyRun, source string, coverage []string, err error) {
	runs, source = []historyRun{}, "cuts"
	rows, err := s.engine.Query(ctx, `SELECT "partition", member_id, coalesce(client_id, ''), coalesce(host, ''), from_as_of,
  CASE WHEN source = 'log' THEN coalesce(until_as_of, to_as_of) ELSE to_as_of END, until_as_of, coalesce(cuts, generations),
  first_committed_offset, last_committed_offset, from_complete, source, coverage
  FROM group_history WHERE topic = ? AND group_id = ? ORDER BY "partition", from_as_of`, topic, group)
	if err != nil {
		return nil, "", nil, fmt.Errorf("read group history: %w", err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var h historyRun
		var complete sql.NullBool
		var src string
		var cov sql.NullString
		if err := rows.Scan(&h.Partition, &h.MemberID, &h.ClientID, &h.Host, &h.FromAsOf, &h.ToAsOf, &h.UntilAsOf, &h.Cuts, &h.FirstOffset, &h.LastOffset,
			&complete, &src, &cov); err != nil {
			return nil, "", nil, fmt.Errorf("read group history: %w", err)
		}
		if complete.Valid {
			h.FromComplete = &complete.Bool
		}
		if src == "log" {
			source = "commit log"
		}
		if cov.Valid && !seen[cov.String] {
			seen[cov.String] = true
			coverage = append(coverage, cov.String)
		}
		runs = append(runs, h)
	}
	return runs, source, coverage, rows.Err()
}

func (s *Server) historyFor(ctx context.Context, topic, group string) (*historyView, error) {
	v := &historyView{Topic: topic, Group: group}
	var err error
	if v.Groups, err = s.historyGroups(ctx); err != nil {
		return nil, err
	}
	if group == "" {
		return v, nil
	}
	if v.Runs, v.Source, v.Coverage, err = s.historyRuns(ctx, topic, group); err != nil {
		return nil, err
	}
	if len(v.Runs) > 0 {
		unit := "cuts"
		if v.Source == "commit log" {
			unit = "generations"
		}
		v.Members, v.Chart = timelineSVG(topic, group, unit, v.Runs)
		if v.LagChart, v.LagNotes, err = s.lagOverTime(ctx, topic, group); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// lagPoints is how many moments the lag chart asks lag_at about.
const lagPoints = 24

// lagOverTime draws the group's lag on topic, one line per partition, at
// lagPoints moments evenly spaced from the topic's first cut to its last;
// a moment lag_at cannot answer is left out of its line and its reason
// listed once.
func (s *Server) lagOverTime(ctx context.Context, topic, group string) (template.HTML, []string, error) {
	var lo, hi sql.NullTime
	if err := s.selectRowsArgs(ctx, "the cuts of "+topic, `SELECT min(as_of), max(as_of) FROM partitions WHERE topic = ?`, []any{topic}, func(r *sql.Rows) error {
		return r.Scan(&lo, &hi)
	}); err != nil {
		return "", nil, err
	}
	if !lo.Valid {
		return "", []string{"no cut of " + topic + " in the folder: its end offsets are unknown"}, nil
	}
	var moments []string
	for i := range lagPoints {
		at := lo.Time
		if span := hi.Time.Sub(lo.Time); span > 0 {
			at = lo.Time.Add(span * time.Duration(i) / (lagPoints - 1))
		} else if i > 0 {
			break
		}
		moments = append(moments, at.UTC().Format(time.RFC3339Nano))
	}
	byPart := map[int32]*chart.Series{}
	var parts []int32
	seen := map[string]bool{}
	var notes []string
	// One statement for every moment (lag_at laterally over the list): each
	// lag_at reads the group's commit log, and 24 statements read it 24
	// times (8 s for a page on a folder of a few hundred records).
	err := s.selectRowsArgs(ctx, "lag_at", `SELECT l.at_time, l."partition", l.lag_records, l.reason
  FROM (SELECT unnest(string_split(?, ','))::TIMESTAMPTZ AS t) m, LATERAL (SELECT * FROM lag_at(?, m.t)) l
  WHERE l.topic = ? ORDER BY l.at_time, l."partition"`,
		[]any{strings.Join(moments, ","), group, topic}, func(r *sql.Rows) error {
			var at time.Time
			var p int32
			var lag sql.NullInt64
			var reason sql.NullString
			if err := r.Scan(&at, &p, &lag, &reason); err != nil {
				return err
			}
			se := byPart[p]
			if se == nil {
				se = &chart.Series{Name: fmt.Sprintf("p%d", p)}
				byPart[p] = se
				parts = append(parts, p)
			}
			if lag.Valid {
				se.Points = append(se.Points, chart.Point{T: at, V: float64(lag.Int64)})
			}
			if reason.Valid && !seen[reason.String] {
				seen[reason.String] = true
				notes = append(notes, reason.String)
			}
			return nil
		})
	if err != nil {
		return "", nil, err
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	ss := make([]chart.Series, 0, len(parts))
	for _, p := range parts {
		ss = append(ss, *byPart[p])
	}
	return chart.Time(fmt.Sprintf("lag of group %s on %s over time", group, topic), "records behind", ss), notes, nil
}

func (s *Server) handleHistoryPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v, err := s.historyFor(r.Context(), q.Get("topic"), q.Get("group"))
	if err != nil {
		s.errorPage(w, errorStatus(err), s.clean(err))
		return
	}
	code := http.StatusOK
	if v.Group != "" && len(v.Runs) == 0 {
		code = http.StatusNotFound
	}
	s.render(w, code, "history.html", "membership history", v)
}

func (s *Server) handleAPIHistory(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v, err := s.historyFor(r.Context(), q.Get("topic"), q.Get("group"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if v.Group == "" {
		writeJSON(w, http.StatusOK, map[string]any{"groups": v.Groups})
		return
	}
	if len(v.Runs) == 0 {
		httpError(w, r, http.StatusNotFound, fmt.Sprintf("group %q has no membership history on topic %q", v.Group, v.Topic))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"topic": v.Topic, "group_id": v.Group, "runs": v.Runs, "source": v.Source, "coverage": v.Coverage})
}

// timelineSVG draws one row per partition: a bar per run, from its first
// cut to its last, coloured by member, titled with who, when and how far
// the group's committed offset moved while they held it.
func timelineSVG(topic, group, unit string, runs []historyRun) ([]historyMember, template.HTML) {
	var parts []int32
	seen := map[int32]bool{}
	lo, hi := time.Time{}, time.Time{}
	members := map[string]*historyMember{}
	var order []string
	for _, r := range runs {
		if !seen[r.Partition] {
			seen[r.Partition] = true
			parts = append(parts, r.Partition)
		}
		if lo.IsZero() || r.FromAsOf.Before(lo) {
			lo = r.FromAsOf
		}
		if r.ToAsOf.After(hi) {
			hi = r.ToAsOf
		}
		m := members[r.MemberID]
		if m == nil {
			m = &historyMember{ClientID: r.ClientID, Host: r.Host, Class: fmt.Sprintf("sw s%d", len(order)%chart.SeriesClasses)}
			members[r.MemberID] = m
			order = append(order, r.MemberID)
		}
		m.Partitions++
		if r.FirstOffset != nil && r.LastOffset != nil {
			m.Committed += *r.LastOffset - *r.FirstOffset
		}
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	row := map[int32]int{}
	for i, p := range parts {
		row[p] = i
	}
	h := chart.RowH*float64(len(parts)) + 34 + 18*float64(len(order))
	s := chart.New(chart.Width, h, fmt.Sprintf("who held each partition of %s for group %s", topic, group))
	plotX, plotW := 50.0, chart.Width-50-20
	span := hi.Sub(lo).Seconds()
	x := func(t time.Time) float64 {
		if span <= 0 {
			return plotX
		}
		return plotX + t.Sub(lo).Seconds()/span*plotW
	}
	for i, p := range parts {
		y := float64(i)*chart.RowH + 4
		s.Text(plotX-6, y+chart.RowH*0.6, "end", "label", fmt.Sprintf("p%d", p))
		s.Rect(plotX, y+3, plotW, chart.RowH-8, "track", "")
	}
	for _, r := range runs {
		y := float64(row[r.Partition])*chart.RowH + 4
		moved := "no committed offset"
		if r.FirstOffset != nil && r.LastOffset != nil {
			moved = fmt.Sprintf("committed offset %d → %d (%s records)", *r.FirstOffset, *r.LastOffset, display.Number(float64(*r.LastOffset-*r.FirstOffset)))
		}
		title := fmt.Sprintf("p%d: %s (%s) from %s to %s, %d %s; %s", r.Partition, r.ClientID, display.Column("host", r.Host),
			display.Time(r.FromAsOf), display.Time(r.ToAsOf), r.Cuts, unit, moved)
		w := math.Max(x(r.ToAsOf)-x(r.FromAsOf), 3)
		s.Rect(x(r.FromAsOf), y+3, w, chart.RowH-8, members[r.MemberID].Class, title)
	}
	ly := chart.RowH*float64(len(parts)) + 20
	s.Text(plotX, ly, "start", "muted", display.Time(lo))
	s.Text(plotX+plotW, ly, "end", "muted", display.Time(hi))
	out := make([]historyMember, 0, len(order))
	for i, id := range order {
		m := members[id]
		out = append(out, *m)
		y := ly + 18*float64(i+1)
		s.Rect(plotX, y-9, 12, 10, m.Class, "")
		s.Text(plotX+18, y, "start", "muted", fmt.Sprintf("%s (%s): %s runs, %s records committed", m.ClientID, display.Column("host", m.Host),
			display.Number(float64(m.Partitions)), display.Number(float64(m.Committed))))
	}
	return out, s.HTML()
}
