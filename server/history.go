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
	"time"

	"github.com/topicsnap/topicsnap/queries"
)

// The membership history of a consumer group (queries' group_history and
// group_commits tables): GET /history?topic=T&group=G draws, per partition,
// who held it from cut to cut and how far their commits moved the group;
// GET /api/history?topic=T&group=G is the same as JSON. Without a group,
// both list the groups that have a history.

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
}

// historyMember is one member in the legend, with what its commits moved.
type historyMember struct {
	ClientID, Host, Class string
	Partitions            int // runs: a partition held from one cut to another
	Committed             int64
}

func (s *Server) historyGroups(ctx context.Context) ([]historyGroup, error) {
	out := []historyGroup{}
	err := s.selectRows(ctx, "group history", `SELECT topic, group_id, count(DISTINCT from_snapshot_id) FROM group_history GROUP BY ALL ORDER BY ALL`,
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

func (s *Server) historyRuns(ctx context.Context, topic, group string) ([]historyRun, error) {
	out := []historyRun{}
	rows, err := s.engine.Query(ctx, `SELECT "partition", member_id, client_id, host, from_as_of, to_as_of, until_as_of, cuts,
  first_committed_offset, last_committed_offset FROM group_history WHERE topic = ? AND group_id = ? ORDER BY "partition", from_as_of`, topic, group)
	if err != nil {
		return nil, fmt.Errorf("read group history: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h historyRun
		if err := rows.Scan(&h.Partition, &h.MemberID, &h.ClientID, &h.Host, &h.FromAsOf, &h.ToAsOf, &h.UntilAsOf, &h.Cuts, &h.FirstOffset, &h.LastOffset); err != nil {
			return nil, fmt.Errorf("read group history: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
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
	if v.Runs, err = s.historyRuns(ctx, topic, group); err != nil {
		return nil, err
	}
	v.Members, v.Chart = timelineSVG(topic, group, v.Runs)
	return v, nil
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
	writeJSON(w, http.StatusOK, map[string]any{"topic": v.Topic, "group_id": v.Group, "runs": v.Runs})
}

// timelineSVG draws one row per partition: a bar per run, from its first
// cut to its last, coloured by member, titled with who, when and how far
// the group's committed offset moved while they held it.
func timelineSVG(topic, group string, runs []historyRun) ([]historyMember, template.HTML) {
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
			m = &historyMember{ClientID: r.ClientID, Host: r.Host, Class: fmt.Sprintf("sw s%d", len(order)%seriesNo)}
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
	h := rowH*float64(len(parts)) + 34 + 18*float64(len(order))
	s := newSVG(chartW, h, fmt.Sprintf("who held each partition of %s for group %s", topic, group))
	plotX, plotW := 50.0, chartW-50-20
	span := hi.Sub(lo).Seconds()
	x := func(t time.Time) float64 {
		if span <= 0 {
			return plotX
		}
		return plotX + t.Sub(lo).Seconds()/span*plotW
	}
	for i, p := range parts {
		y := float64(i)*rowH + 4
		s.text(plotX-6, y+rowH*0.6, "end", "label", fmt.Sprintf("p%d", p))
		s.rect(plotX, y+3, plotW, rowH-8, "track", "")
	}
	for _, r := range runs {
		y := float64(row[r.Partition])*rowH + 4
		moved := "no committed offset"
		if r.FirstOffset != nil && r.LastOffset != nil {
			moved = fmt.Sprintf("committed offset %d → %d (%s records)", *r.FirstOffset, *r.LastOffset, queries.FormatNumber(float64(*r.LastOffset-*r.FirstOffset)))
		}
		title := fmt.Sprintf("p%d: %s (%s) from %s to %s, %d cuts; %s", r.Partition, r.ClientID, queries.Display("host", r.Host),
			r.FromAsOf.UTC().Format(time.RFC3339), r.ToAsOf.UTC().Format(time.RFC3339), r.Cuts, moved)
		w := math.Max(x(r.ToAsOf)-x(r.FromAsOf), 3)
		s.rect(x(r.FromAsOf), y+3, w, rowH-8, members[r.MemberID].Class, title)
	}
	ly := rowH*float64(len(parts)) + 20
	s.text(plotX, ly, "start", "muted", lo.UTC().Format("2006-01-02 15:04:05Z"))
	s.text(plotX+plotW, ly, "end", "muted", hi.UTC().Format("2006-01-02 15:04:05Z"))
	out := make([]historyMember, 0, len(order))
	for i, id := range order {
		m := members[id]
		out = append(out, *m)
		y := ly + 18*float64(i+1)
		s.rect(plotX, y-9, 12, 10, m.Class, "")
		s.text(plotX+18, y, "start", "muted", fmt.Sprintf("%s (%s): %s runs, %s records committed", m.ClientID, queries.Display("host", m.Host),
			queries.FormatNumber(float64(m.Partitions)), queries.FormatNumber(float64(m.Committed))))
	}
	return out, s.html()
}
