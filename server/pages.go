package server

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/topicsnap/topicsnap/internal/chart"
	"github.com/topicsnap/topicsnap/internal/display"
	"github.com/topicsnap/topicsnap/queries"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// pages are the parsed templates, one set per page: the layout plus the
// page's own file.
type pages struct{ sets map[string]*template.Template }

var pageFiles = []string{"overview.html", "check.html", "sql.html", "login.html", "error.html", "history.html"}

var templateFuncs = template.FuncMap{
	// wbr lets a column name (committed_offset) break after its
	// underscores, so a wide report's table fits its page instead of
	// pushing its last columns out of view.
	"wbr": func(s string) template.HTML {
		parts := strings.Split(s, "_")
		for i, p := range parts {
			parts[i] = template.HTMLEscapeString(p)
		}
		return template.HTML(strings.Join(parts, "_<wbr>"))
	},
	// inputsize is a text input's width in characters: its whole value
	// (or placeholder) shown, never cut (at least 10, at most 60).
	"inputsize": func(value, placeholder string) int {
		return min(max(utf8.RuneCountInString(value), utf8.RuneCountInString(placeholder), 9)+1, 60)
	},
	"host": func(h string) string { return display.Column("host", h) },
	"number": func(n any) string {
		switch x := n.(type) {
		case int:
			return number(float64(x))
		case int64:
			return number(float64(x))
		case float64:
			return number(x)
		}
		return fmt.Sprint(n)
	},
	// offset writes an address as its plain digits (display.Column's
	// rule), a missing one (a nil *int64) as nothing.
	"offset": func(n any) string {
		if p, ok := n.(*int64); ok {
			if p == nil {
				return ""
			}
			n = *p
		}
		return display.Column("offset", n)
	},
	"when": display.Time,
	"ago":  ago,
}

func loadPages() (*pages, error) {
	p := &pages{sets: map[string]*template.Template{}}
	for _, f := range pageFiles {
		t, err := template.New("layout.html").Funcs(templateFuncs).ParseFS(templateFS, "templates/layout.html", "templates/"+f)
		if err != nil {
			return nil, fmt.Errorf("parse template %s: %w", f, err)
		}
		p.sets[f] = t
	}
	// The bar on notebook pages is a fragment, not a page of the layout.
	bar, err := template.New("notebookbar.html").Funcs(templateFuncs).ParseFS(templateFS, "templates/notebookbar.html")
	if err != nil {
		return nil, fmt.Errorf("parse template notebookbar.html: %w", err)
	}
	p.sets["notebookbar.html"] = bar
	return p, nil
}

// pageData is what the layout gets; Body is the page's own data.
type pageData struct {
	Title   string
	Refresh int  // seconds after which the page reloads itself; 0 never
	SQL     bool // show the SQL link
	Auth    bool // show the log-out button
	Body    any
}

// render writes a page with status code. The page is executed into a
// buffer first, so a template error is a clean 500.
func (s *Server) render(w http.ResponseWriter, code int, page, title string, body any) {
	if html, ok := s.renderBytes(w, page, title, body); ok {
		writeHTML(w, code, html)
	}
}

// renderBytes executes a page's template; on failure it answers 500 itself
// and returns false.
func (s *Server) renderBytes(w http.ResponseWriter, page, title string, body any) ([]byte, bool) {
	return s.renderPage(w, page, title, body, false)
}

// renderPage is renderBytes; reload makes the page reload itself every
// overviewRefresh seconds.
func (s *Server) renderPage(w http.ResponseWriter, page, title string, body any, reload bool) ([]byte, bool) {
	var buf bytes.Buffer
	pd := pageData{Title: title, SQL: s.sql, Auth: s.opts.Token != "" || s.opts.authOn, Body: body}
	if reload {
		pd.Refresh = overviewRefresh
	}
	err := s.pages.sets[page].ExecuteTemplate(&buf, "layout.html", pd)
	if err != nil {
		s.logf("render %s: %s", page, s.clean(err))
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return nil, false
	}
	return buf.Bytes(), true
}

func writeHTML(w http.ResponseWriter, code int, html []byte) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(html)
}

// errorPage shows an error to people.
func (s *Server) errorPage(w http.ResponseWriter, code int, msg string) {
	s.render(w, code, "error.html", http.StatusText(code), struct {
		Code    int
		Message string
	}{code, msg})
}

func ago(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < 0:
		return "in the future"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

// ---- overview ----

type overviewData struct {
	Version   string
	Topics    []topicView
	Snapshots []apiSnapshot
	Notebooks []servedNotebook // listed afresh on each view, not cached
	Checks    []string
	Problems  []string // what the catalog had to skip (a damaged manifest), named
	// A folder of more than a page of topics is shown a page at a time.
	Page, Pages int
	AllTopics   int
	PageLinks   []int
	// Troubled are the folder's topics with lost ranges or a failing
	// tile (of those known), every page's, with the page they are on.
	Troubled     []troubledTopic
	TroubledMore int    // troubled topics not listed
	Pending      int    // this page's tiles being computed in the background
	Elsewhere    int    // other pages' tiles not known yet
	transient    bool   // some tile timed out or is pending: do not cache
	key          string // the catalog version, the checks file and the page it was built for
}

type troubledTopic struct {
	Name, Why string
	Page      int
}

type topicView struct {
	Name       string
	Partitions int
	// OldPartitions says which partitions are an old topic's only (the
	// topic deleted and made again with fewer), "" when none.
	OldPartitions string
	Files         int
	Records       int64
	JSON          bool
	LostRanges    int
	LostOffsets   int64
	Latest        *apiSnapshot
	Coverage      template.HTML
	Tiles         []tile
}

type tile struct {
	Check, Status, Label, Message, Link string
}

const (
	// overviewPageSize is the topics on one page of the overview.
	overviewPageSize = 100
	// overviewInline is the most tiles a folder may have for the
	// overview to compute its missing ones before it answers; past it (a
	// large folder) it computes for overviewBudget and leaves the rest to
	// the warmer.
	overviewInline = 120
	overviewBudget = 200 * time.Millisecond
	// maxTroubled is the troubled topics the overview names.
	maxTroubled = 100
	// overviewRefresh is how often, in seconds, a page with pending tiles
	// reloads itself.
	overviewRefresh = 5
)

func (s *Server) handleOverview(w http.ResponseWriter, r *http.Request) {
	page := 1
	if raw := r.URL.Query().Get("page"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 {
			s.errorPage(w, http.StatusBadRequest, fmt.Sprintf("page %q: give a page number, 1 or more", raw))
			return
		}
		page = n
	}
	d, err := s.overviewFor(r.Context(), page)
	if err != nil {
		s.errorPage(w, errorStatus(err), s.clean(err))
		return
	}
	s.overviewMu.Lock()
	cachedPage := s.overviewPage
	s.overviewMu.Unlock()
	if cachedPage.version == d.key && time.Since(cachedPage.at) < time.Second {
		s.metrics.cache("overview page", true)
		writeHTML(w, http.StatusOK, cachedPage.html)
		return
	}
	s.metrics.cache("overview page", false)
	view := *d
	view.Notebooks = s.listNotebooks()
	html, ok := s.renderPage(w, "overview.html", "topicsnap", &view, d.Pending > 0)
	if !ok {
		return
	}
	if !d.transient {
		s.overviewMu.Lock()
		s.overviewPage.version, s.overviewPage.at, s.overviewPage.html = d.key, time.Now(), html
		s.overviewMu.Unlock()
	}
	writeHTML(w, http.StatusOK, html)
}

// overviewFor returns a page of the overview of the current catalog
// version and checks file, built once per version.
func (s *Server) overviewFor(ctx context.Context, page int) (*overviewData, error) {
	v := s.tileStoreKey() + "/" + strconv.Itoa(page)
	s.overviewMu.Lock()
	d := s.overview[v]
	s.overviewMu.Unlock()
	if d != nil {
		s.metrics.cache("overview", true)
		return d, nil
	}
	s.metrics.cache("overview", false)
	d, err := s.buildOverview(ctx, page)
	if err != nil {
		return nil, err
	}
	d.key = v
	if !d.transient {
		s.overviewMu.Lock()
		for k := range s.overview {
			if !strings.HasPrefix(k, s.tileStoreKey()+"/") || len(s.overview) > 64 {
				delete(s.overview, k)
			}
		}
		s.overview[v] = d
		s.overviewMu.Unlock()
	}
	return d, nil
}

// checksFileStamp changes when the folder's checks file does: its size and
// modification time ("" when there is none).
func (s *Server) checksFileStamp() string {
	st, err := os.Stat(filepath.Join(s.engine.Dir(), queries.ChecksFileName))
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d.%d", st.Size(), st.ModTime().UnixNano())
}

// buildOverview builds one page of the overview. Its tiles come from the
// tile store, else from a report already cached; missing ones are
// computed here when the whole folder has at most overviewInline tiles
// (a small folder: every tile is then computed before the page answers,
// under one deadline, as always). In a larger folder (even one missing
// only a few: the last hundred would cost a view seconds), this page's missing tiles
// are computed for overviewBudget and the rest are "pending": the warmer
// computes them (this page's first, then the others'), and the page
// reloads itself until none is.
func (s *Server) buildOverview(ctx context.Context, page int) (*overviewData, error) {
	d := &overviewData{Version: s.engine.Version(), Checks: queries.CheckNames, Page: page}
	for _, p := range s.engine.Problems() {
		d.Problems = append(d.Problems, s.cleanText(p))
	}
	topics := s.engine.Topics()
	size := s.opts.overviewPageSize
	if size <= 0 {
		size = overviewPageSize
	}
	d.AllTopics = len(topics)
	d.Pages = max(1, (len(topics)+size-1)/size)
	if page > d.Pages {
		return nil, &badRequest{fmt.Sprintf("page %d: the overview has %d", page, d.Pages)}
	}
	if d.Pages > 1 {
		for i := 1; i <= d.Pages; i++ {
			d.PageLinks = append(d.PageLinks, i)
		}
	}
	lo, hi := (page-1)*size, min(page*size, len(topics))
	snaps, err := s.snapshots(ctx)
	if err != nil {
		return nil, err
	}
	cov, err := s.coverage(ctx)
	if err != nil {
		return nil, err
	}
	// The checks the folder's checks file configures for a topic lead
	// its tiles, in the file's order (a file that cannot be read is a
	// problem the overview shows, and the tiles run with defaults).
	cfgs, err := queries.ReadChecksFile(s.engine.Dir())
	if err != nil {
		d.Problems = append(d.Problems, s.clean(err))
		d.transient = true
	}
	cs := s.checksFileStamp()
	// Every topic's tiles as the store knows them; the missing ones
	// counted, this page's and the others'.
	type topicTiles struct {
		order []string
		known map[string]tile
	}
	all := make([]topicTiles, len(topics))
	var missHere, missElse []stampedKey
	disk := s.tiles.onDisk() // what the other workers computed
	for i, t := range topics {
		tt := topicTiles{order: tileOrder(cfgs, t.Name), known: map[string]tile{}}
		stamp := s.tileStamp(t.Name, cs, cfgs)
		for _, name := range tt.order {
			k := stampedKey{stamp, tileKey{name, t.Name}}
			if tl, ok := s.tiles.getListed(stamp, k.tileKey, disk); ok {
				if tl.Status == "timeout" { // the warmer's: a check page opened since may have its report
					if c := s.tileMode(ctx, name, t.Name, false, true); c.Status != "pending" {
						tl = c
						s.tiles.put(stamp, k.tileKey, tl, false)
					}
				}
				tt.known[name] = tl
			} else if i >= lo && i < hi {
				missHere = append(missHere, k)
			} else {
				missElse = append(missElse, k)
			}
		}
		all[i] = tt
	}
	inline := s.opts.overviewInline
	if inline <= 0 {
		inline = overviewInline
	}
	total := 0
	for _, tt := range all {
		total += len(tt.order)
	}
	if total <= inline {
		// All tiles share one deadline; a check past it shows as "timeout"
		// and the next view picks up where this one stopped.
		tctx, cancel := context.WithTimeout(ctx, 3*s.opts.QueryTimeout)
		defer cancel()
		for _, k := range append(missHere, missElse...) {
			tl := s.tile(tctx, k.check, k.topic)
			if tl.Status == "timeout" {
				d.transient = true
			}
			s.tiles.put(k.stamp, k.tileKey, tl, false)
			all[s.topicIndex(topics, k.topic, lo)].known[k.check] = tl
		}
	} else {
		budget := s.opts.overviewBudget
		if budget <= 0 {
			budget = overviewBudget
		}
		// A check started within the budget stops at its end too: the
		// page answers in time, and the check goes to the warmer.
		bctx, cancel := context.WithTimeout(ctx, budget)
		defer cancel()
		var warm []stampedKey
		for _, k := range missHere {
			var tl tile
			if bctx.Err() == nil {
				tl = s.tileKept(bctx, k.check, k.topic, false)
			} else {
				tl = s.tileMode(ctx, k.check, k.topic, false, true) // a report cached, or pending
			}
			// Every check slot taken (the warmer waits for one), or the
			// budget ended while the check ran: the warmer computes it.
			if tl.Label == "busy" || (tl.Status == "timeout" && bctx.Err() != nil && ctx.Err() == nil) {
				tl = tile{Check: tl.Check, Link: tl.Link, Status: "pending", Label: "running", Message: pendingMessage}
			}
			switch tl.Status {
			case "pending":
				warm = append(warm, k)
				d.Pending++
			case "timeout":
				d.transient = true
			}
			s.tiles.put(k.stamp, k.tileKey, tl, false)
			all[s.topicIndex(topics, k.topic, lo)].known[k.check] = tl
		}
		d.Elsewhere = len(missElse)
		if len(warm)+len(missElse) > 0 {
			d.transient = true
			s.warm.add(append(warm, missElse...))
		}
	}
	for i, t := range topics {
		lost, lostOffsets := 0, int64(0)
		for _, c := range cov[t.Name] {
			lost += len(c.Lost)
			for _, l := range c.Lost {
				lostOffsets += l.To - l.From + 1
			}
		}
		if d.Pages > 1 {
			var why []string
			if lost > 0 {
				why = append(why, fmt.Sprintf("%d lost ranges", lost))
			}
			for _, name := range all[i].order {
				if tl, ok := all[i].known[name]; ok && (tl.Status == queries.StatusFail || tl.Status == "error") {
					why = append(why, name+" "+tl.Label)
				}
			}
			if len(why) > 0 {
				if len(d.Troubled) < maxTroubled {
					d.Troubled = append(d.Troubled, troubledTopic{Name: t.Name, Why: strings.Join(why, ", "), Page: i/size + 1})
				} else {
					d.TroubledMore++
				}
			}
		}
		if i < lo || i >= hi {
			continue
		}
		tv := topicView{Name: t.Name, Partitions: t.Partitions, OldPartitions: oldPartitions(t), Files: t.Files, Records: t.Records, JSON: t.JSON, LostRanges: lost, LostOffsets: lostOffsets}
		for j := range snaps {
			if snaps[j].Topic == t.Name {
				tv.Latest = &snaps[j] // newest first
				break
			}
		}
		tv.Coverage = chart.Coverage(t.Name, drawn(cov[t.Name]))
		for _, name := range all[i].order {
			tl, ok := all[i].known[name]
			if !ok { // cannot happen: every tile of the page is known or pending
				tl = tile{Check: name, Status: "pending", Label: "running", Message: pendingMessage}
			}
			tv.Tiles = append(tv.Tiles, tl)
		}
		d.Topics = append(d.Topics, tv)
	}
	if d.Pages > 1 {
		// Only this page's snapshots: the table of a whole cluster's would
		// be the page's bulk.
		var mine []apiSnapshot
		on := map[string]bool{}
		for _, t := range topics[lo:hi] {
			on[t.Name] = true
		}
		for _, sn := range snaps {
			if on[sn.Topic] {
				mine = append(mine, sn)
			}
		}
		snaps = mine
	}
	d.Snapshots = snaps
	return d, nil
}

// topicIndex finds a topic's index among topics, looking from hint on
// (tiles come in the topics' order).
func (s *Server) topicIndex(topics []queries.Topic, name string, hint int) int {
	for i := hint; i < len(topics); i++ {
		if topics[i].Name == name {
			return i
		}
	}
	for i := 0; i < hint && i < len(topics); i++ {
		if topics[i].Name == name {
			return i
		}
	}
	return -1
}

// tileOrder is the checks of topic's tiles: those the checks file
// configures for it, in the file's order, then the others.
func tileOrder(cfgs []queries.ConfiguredCheck, topic string) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cfgs {
		if c.Topic == topic && !seen[c.Check] {
			out = append(out, c.Check)
			seen[c.Check] = true
		}
	}
	for _, n := range queries.CheckNames {
		if !seen[n] {
			out = append(out, n)
		}
	}
	return out
}

// tile runs a check for the overview: with the options the folder's checks
// file keeps for it on the topic, else its defaults. Its verdict is the
// check's: the report the check page and the API give.
func (s *Server) tile(ctx context.Context, name, topic string) tile {
	return s.tileKept(ctx, name, topic, true)
}

// tileKept is tile; keep false leaves a report it computes out of the
// report cache (the warmer's thousands of reports would push out the
// pages people look at), and a report already there is still used.
func (s *Server) tileKept(ctx context.Context, name, topic string, keep bool) tile {
	return s.tileMode(ctx, name, topic, keep, false)
}

// pendingMessage is a pending tile's message.
const pendingMessage = "being computed in the background; this page refreshes by itself"

// errNotCached is tileMode's answer, with only cached, for a report
// not in the cache.
var errNotCached = errors.New("not computed yet")

func (s *Server) tileMode(ctx context.Context, name, topic string, keep, onlyCached bool) tile {
	t := tile{Check: name, Link: "/checks/" + name + "?" + url.Values{"topic": {topic}}.Encode()}
	q, err := s.parseCheckQuery(name, url.Values{"topic": {topic}})
	var rep *queries.Report
	if err == nil {
		t.Link = "/checks/" + name + "?" + q.params.Encode()
		if onlyCached {
			c, ok := s.cache.get(s.engine.Version(), q.key(name))
			if ok {
				rep, err = c.report, c.err
			} else {
				err = errNotCached
			}
		} else {
			rep, err = s.runCheckKeep(ctx, name, q, keep)
		}
	}
	var bad *badRequest
	switch {
	case errors.Is(err, errNotCached):
		t.Status, t.Label, t.Message = "pending", "running", pendingMessage
	case errors.Is(err, context.Canceled):
		t.Status, t.Label, t.Message = "timeout", "cancelled", "the check was cancelled; open it to retry"
	case err == nil:
		t.Status, t.Label, t.Message = rep.Status, rep.Status, rep.Message
	case errors.As(err, &bad):
		t.Status, t.Label, t.Message = "needs", "needs options", bad.msg
	case errors.Is(err, queries.ErrTimeout):
		t.Status, t.Label, t.Message = "timeout", "timeout", "the check ran past its time; open it to retry"
	case errors.Is(err, errBusy):
		t.Status, t.Label, t.Message = "timeout", "busy", "the server was busy with other reports; open it to retry"
	case errors.Is(err, queries.ErrBadOption):
		t.Status, t.Label, t.Message = "needs", "needs options", s.clean(err)
	case errors.Is(err, queries.ErrBadCheck):
		t.Status, t.Label, t.Message = "na", "not available", s.clean(err)
	default:
		t.Status, t.Label, t.Message = "error", "error", s.clean(err)
	}
	return t
}

// ---- check page ----

type formField struct {
	checkParam
	Value    string
	Disabled bool // a SQL expression while SQL is off
}

type kv struct{ Key, Value string }

type table struct {
	Title   string
	Columns []string
	Rows    [][]string
}

type checkPage struct {
	Check    string
	Topic    string
	Topics   []string
	Checks   []string
	Fields   []formField
	Hidden   []kv // options in the URL this form does not show, kept
	Error    string
	Report   *queries.Report
	Summary  []fact
	Rows     []table // the report's rows not in Tables, a table per kind
	Tables   []table
	Charts   []chart.Chart
	ChartErr string
	JSONLink string
}

func (s *Server) handleCheckPage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if !knownCheck(name) {
		s.errorPage(w, http.StatusNotFound, "unknown check "+name+": use one of "+strings.Join(queries.CheckNames, ", "))
		return
	}
	// A check page is a function of the catalog's version and the request's
	// query (the report, the charts, the form's fields as typed): a page
	// rendered whole, without an error, is kept and served as is, so that
	// a cached report costs no template work.
	version, pageKey := s.engine.Version(), "page\x00"+name+"\x00"+r.URL.RawQuery
	if c, ok := s.cache.get(version, pageKey); ok && c.html != nil {
		s.metrics.cache("pages", true)
		writeHTML(w, http.StatusOK, c.html)
		return
	}
	s.metrics.cache("pages", false)
	raw := r.URL.Query()
	p := checkPage{Check: name, Checks: queries.CheckNames, Topic: raw.Get("topic")}
	for _, t := range s.engine.Topics() {
		p.Topics = append(p.Topics, t.Name)
	}
	q, err := s.parseCheckQuery(name, raw)
	code := http.StatusOK
	if err == nil {
		p.Topic = q.opts.Topic
		p.JSONLink = "/api/checks/" + name + "?" + q.params.Encode()
		if c, ok := queries.LookupCheck(name); ok && c.Charts != nil {
			q.opts.Charts = true // the page draws the check's series: one run computes both
		}
		p.Report, err = s.runCheck(r.Context(), name, q)
	}
	p.Fields, p.Hidden = s.formFields(name, raw)
	if err != nil {
		code, p.Error = errorStatus(err), s.clean(err)
		if code == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "1")
		}
		s.render(w, code, "check.html", name+" · "+p.Topic, p)
		return
	}
	p.Summary = summaryOf(p.Report.Summary)
	for _, t := range p.Report.Tables {
		if len(t.Rows) > 0 { // no heading over an empty table
			p.Tables = append(p.Tables, peopleTable(t))
		}
	}
	p.Rows = rowsTables(p.Report)
	p.Charts, err = s.chartsFor(r.Context(), name, q, p.Report)
	if err != nil {
		p.ChartErr = s.clean(err)
	}
	html, ok := s.renderBytes(w, "check.html", name+" · "+p.Topic, p)
	if !ok {
		return
	}
	if err == nil {
		s.cache.put(version, pageKey, cached{html: html})
	}
	writeHTML(w, code, html)
}

// formFields are the inputs of a check's form, one per option it takes,
// filled from the URL. Nothing else survives a submit: a parameter that is
// not an option of the check is refused.
func (s *Server) formFields(check string, v url.Values) (fields []formField, hidden []kv) {
	c, _ := queries.LookupCheck(check)
	for _, name := range c.Options {
		op := queries.CheckOptionSet[name]
		p := paramOf(op)
		if p.Max != "" {
			p.Max = strconv.FormatFloat(s.optionMax(op), 'f', -1, 64)
		}
		fields = append(fields, formField{checkParam: p, Value: v.Get(name), Disabled: op.Kind == queries.KindExpr && !s.sql})
	}
	return fields, nil
}

// chartsFor draws a check's charts from its report, cached like the report
// (a chart may read the catalog's coverage).
func (s *Server) chartsFor(ctx context.Context, name string, q checkQuery, r *queries.Report) ([]chart.Chart, error) {
	version, key := s.engine.Version(), "charts\x00"+q.key(name)
	if c, ok := s.cache.get(version, key); ok {
		s.metrics.cache("charts", true)
		return c.charts, nil
	}
	s.metrics.cache("charts", false)
	charts, err := s.drawCharts(ctx, name, q.opts, r)
	if err != nil {
		return nil, err
	}
	s.cache.put(version, key, cached{charts: charts})
	return charts, nil
}

// drawCharts draws a check's charts by its descriptor's Charts (none
// when it has none), with the folder's coverage at hand.
func (s *Server) drawCharts(ctx context.Context, name string, o queries.CheckOptions, r *queries.Report) ([]chart.Chart, error) {
	c, ok := queries.LookupCheck(name)
	if !ok || c.Charts == nil {
		return nil, nil
	}
	return c.Charts(ctx, queries.ChartInput{Report: r, Options: o, Coverage: func(ctx context.Context, topic string) ([]chart.Partition, error) {
		cov, err := s.coverage(ctx)
		if err != nil {
			return nil, err
		}
		return drawn(cov[topic]), nil
	}})
}

// fact is one summary figure: as people read it, and as the JSON API has
// it (data-value), so a page can be checked against /api/checks.
type fact struct{ Key, Value, Raw string }

func summaryOf(m *queries.Summary) []fact {
	if m == nil {
		return nil
	}
	out := make([]fact, 0, len(m.Keys))
	for _, k := range m.Keys {
		raw, _ := json.Marshal(display.JSON(m.Vals[k]))
		out = append(out, fact{k, display.Column(k, m.Vals[k]), string(raw)})
	}
	return out
}

// rowsTables lays out a report's rows for people: one table per kind of
// row (partition, silence, top_key, ...), with the columns that kind has
// and without the kind column itself; rows that a table of the report
// already shows (skew's top keys, lag's members, reset's partitions) are
// not shown twice. Values go through display.Column.
func rowsTables(r *queries.Report) []table {
	shown := map[string]bool{}
	for _, t := range r.Tables {
		for _, row := range t.Rows {
			shown[signature(t.Columns, func(i int, _ string) any { return row[i] })] = true
		}
	}
	var kinds []string
	byKind := map[string][]queries.Row{}
	for _, row := range r.Rows {
		dup := false
		for _, t := range r.Tables {
			if shown[signature(t.Columns, func(_ int, c string) any { return row.Get(c) })] {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		k := fmt.Sprint(row.Get("kind"))
		if _, ok := byKind[k]; !ok {
			kinds = append(kinds, k)
		}
		byKind[k] = append(byKind[k], row)
	}
	var out []table
	for _, k := range kinds {
		rows := byKind[k]
		t := table{Title: "Rows"}
		if len(kinds) > 1 && k != "<nil>" {
			t.Title = "Rows: " + strings.ReplaceAll(k, "_", " ")
		}
		seen := map[string]bool{"kind": true}
		for _, row := range rows {
			for _, c := range row.Keys {
				if !seen[c] {
					seen[c] = true
					t.Columns = append(t.Columns, c)
				}
			}
		}
		for _, row := range rows {
			cells := make([]string, len(t.Columns))
			for i, c := range t.Columns {
				if v, ok := row.Vals[c]; ok {
					cells[i] = display.Column(c, v)
				}
			}
			t.Rows = append(t.Rows, cells)
		}
		out = append(out, t)
	}
	return out
}

// signature is a row's values in columns, as one string.
func signature(cols []string, val func(int, string) any) string {
	var b strings.Builder
	for i, c := range cols {
		if c == "kind" {
			continue
		}
		b.WriteString(c + "\x00" + display.Column(c, val(i, c)) + "\x01")
	}
	return b.String()
}

// peopleTable lays out one of a report's named tables, without a kind
// column that says the same on every row.
func peopleTable(t queries.Table) table {
	out := table{Title: t.Title}
	keep := make([]bool, len(t.Columns))
	for i, c := range t.Columns {
		keep[i] = true
		if c == "kind" && len(t.Rows) > 0 {
			same := true
			for _, r := range t.Rows {
				same = same && fmt.Sprint(r[i]) == fmt.Sprint(t.Rows[0][i])
			}
			keep[i] = !same
		}
		if keep[i] {
			out.Columns = append(out.Columns, c)
		}
	}
	for _, r := range t.Rows {
		var cells []string
		for i, v := range r {
			if keep[i] {
				cells = append(cells, display.Column(t.Columns[i], v))
			}
		}
		out.Rows = append(out.Rows, cells)
	}
	return out
}

// ---- SQL page and login ----

func (s *Server) handleSQLPage(w http.ResponseWriter, r *http.Request) {
	if !s.sql {
		s.errorPage(w, http.StatusForbidden, "ad-hoc SQL is off on this server")
		return
	}
	var topics []string
	for _, t := range s.engine.Topics() {
		topics = append(topics, t.Name)
	}
	example := "SELECT * FROM snapshots ORDER BY as_of DESC"
	if len(topics) > 0 {
		example = fmt.Sprintf("SELECT \"partition\", count(*) AS records, max(\"timestamp\") AS newest\nFROM %s\nGROUP BY ALL\nORDER BY ALL", queries.QuoteIdent(topics[0]))
	}
	// ?q=SQL fills the editor; with run=1 the page runs it on load, unless
	// another site sent the browser here (then it only fills the editor).
	v := r.URL.Query()
	run := false
	if q := v.Get("q"); q != "" {
		if len(q) > maxBody {
			s.errorPage(w, http.StatusBadRequest, "q is too long")
			return
		}
		example = q
		if raw := v.Get("run"); raw != "" {
			b, err := parseBool(raw)
			if err != nil {
				s.errorPage(w, http.StatusBadRequest, "run: "+err.Error())
				return
			}
			run = b && !crossSite(r)
		}
	}
	format := v.Get("format")
	switch format {
	case "", "json":
		format = "json"
	case "csv":
	default:
		s.errorPage(w, http.StatusBadRequest, fmt.Sprintf("unknown format %q: use json or csv", format))
		return
	}
	s.render(w, http.StatusOK, "sql.html", "SQL", struct {
		Topics  []string
		Tables  []string
		Example string
		Format  string
		Run     bool
		MaxRows int
		Timeout time.Duration
	}{topics, queries.CatalogTables(), example, format, run, s.opts.MaxRows, s.opts.QueryTimeout})
}

type loginPage struct {
	Next  string
	Error string
}

func (s *Server) handleLoginForm(w http.ResponseWriter, r *http.Request) {
	next := localRedirect(r.URL.Query().Get("next"))
	if s.opts.Token == "" {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	s.render(w, http.StatusOK, "login.html", "Log in", loginPage{Next: next})
}

func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.failBody(w, r, err)
		return
	}
	next := localRedirect(r.PostForm.Get("next"))
	if s.opts.Token == "" {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	switch a, wait := s.checkToken(r, r.PostForm.Get("token"), true); a {
	case authLimited:
		secs := int((wait + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		s.render(w, http.StatusTooManyRequests, "login.html", "Log in",
			loginPage{Next: next, Error: fmt.Sprintf("too many wrong tokens: try again in %d s", secs)})
		return
	case authBad:
		s.render(w, http.StatusUnauthorized, "login.html", "Log in", loginPage{Next: next, Error: "wrong token"})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookieName(r), Value: s.sessions.create(), Path: "/", HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode, MaxAge: int(sessionTTL / time.Second)})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// handleLogout ends the session the cookie names, on the server, and
// clears the cookie.
func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) {
	name := sessionCookieName(r)
	if c, err := r.Cookie(name); err == nil {
		s.sessions.end(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// failBody answers a body that could not be read: 413 past the bound.
func (s *Server) failBody(w http.ResponseWriter, r *http.Request, err error) {
	var tooBig *http.MaxBytesError
	var bad *badRequest
	switch {
	case errors.As(err, &tooBig):
		httpError(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", tooBig.Limit))
	case errors.As(err, &bad):
		httpError(w, r, http.StatusBadRequest, bad.msg)
	default:
		httpError(w, r, http.StatusBadRequest, "read the request: "+s.clean(err))
	}
}

// staticFiles serves the embedded stylesheet and script.
func staticFiles() http.Handler {
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err) // the embed pattern guarantees the folder
	}
	fsrv := http.FileServerFS(sub)
	return http.StripPrefix("/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		fsrv.ServeHTTP(w, r)
	}))
}

// oldPartitions says which of t's partitions are an old topic's only
// ("1, 2 (the topic was deleted and made again with fewer partitions:
// their records are history, in the view "T$superseded")"), "" when none.
func oldPartitions(t queries.Topic) string {
	if len(t.OldPartitions) == 0 {
		return ""
	}
	ps := make([]string, len(t.OldPartitions))
	for i, p := range t.OldPartitions {
		ps[i] = strconv.Itoa(int(p))
	}
	return strings.Join(ps, ", ") + " (the topic was deleted and made again with fewer partitions: their records are history, in the view \"" + t.Name + "$superseded\")"
}
