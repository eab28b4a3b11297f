package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/topicsnap/topicsnap/notebooks"
	"github.com/topicsnap/topicsnap/queries"
)

// A servedNotebook is one notebook the server offers at /notebooks/{Key}.
type servedNotebook struct {
	Key     string // the file name, e.g. did-kafka-lose-my-event.md: the route key
	Title   string
	Source  string // where it comes from, for people
	Params  []kv   // declared parameters and their defaults, by name
	Needs   string // the data it is written for (front matter needs)
	Err     string // why the file does not parse, folder paths removed
	Link    string
	path    string // file path; for a shipped notebook, its name in notebooks.Shipped
	shipped bool
}

// listNotebooks lists the notebooks the server offers, listed afresh on
// each call so an edited or added notebook shows without a restart; a file
// is read again only when its size, time or inode changed (notebooks.Lister),
// and only regular files inside each folder, of at most 4 MiB, are read. Sources, in order of precedence when two files have
// the same name: the snapshot folder's own top-level *.md, then each of
// Options.NotebookDirs, then the notebooks shipped with topicsnap. Only
// names in this list are ever opened: the route key is never a path.
func (s *Server) listNotebooks() []servedNotebook {
	var out []servedNotebook
	seen := map[string]bool{}
	add := func(e notebooks.Entry, source string, shipped bool) {
		key := filepath.Base(e.Path)
		if seen[key] {
			return // shadowed by an earlier source
		}
		seen[key] = true
		n := servedNotebook{Key: key, Title: e.Title, Needs: e.Needs, Source: source, path: e.Path, shipped: shipped,
			Link: "/notebooks/" + url.PathEscape(key)}
		if e.Err != nil {
			// Name the file by its key: no folder paths on pages.
			n.Err = s.clean(e.Err)
			n.Err = strings.ReplaceAll(n.Err, e.Path, key)
			n.Err = strings.ReplaceAll(n.Err, filepath.Dir(e.Path)+string(filepath.Separator), "")
		}
		for _, k := range sortedKeys(e.Params) {
			n.Params = append(n.Params, kv{k, e.Params[k]})
		}
		out = append(out, n)
	}
	list := func(dir, source string) {
		entries, err := s.lister.List(dir)
		if err != nil {
			s.logf("list notebooks: %s", s.clean(err))
			return
		}
		for _, e := range entries {
			add(e, source, false)
		}
	}
	list(s.engine.Dir(), "snapshot folder")
	for _, d := range s.opts.NotebookDirs {
		list(d, "notebooks folder "+filepath.Base(filepath.Clean(d)))
	}
	for _, e := range notebooks.ListShipped() {
		add(e, "shipped with topicsnap", true)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// findNotebook looks a route key up in the listing: the file name, or the
// name without .md.
func (s *Server) findNotebook(name string) (servedNotebook, bool) {
	for _, n := range s.listNotebooks() {
		if n.Key == name || strings.TrimSuffix(n.Key, filepath.Ext(n.Key)) == name {
			return n, true
		}
	}
	return servedNotebook{}, false
}

// source reads the notebook's text: a regular file inside its folder, of
// at most notebooks.MaxFileBytes (notebooks.ReadFile).
func (n servedNotebook) source() ([]byte, error) {
	if n.shipped {
		return notebooks.Shipped.ReadFile(n.path)
	}
	return notebooks.ReadFile(filepath.Dir(n.path), filepath.Base(n.path))
}

// maxParamLen bounds one notebook parameter's value.
const maxParamLen = 4096

// notebookParams validates a notebook page's query string: only the
// notebook's declared parameters, one value each. An empty value means the
// default (an HTML form sends every field). The result is every declared
// parameter with its value, defaults filled in, so that requests meaning
// the same share a cache entry.
func notebookParams(nb *notebooks.Notebook, rawQuery string) (map[string]string, error) {
	v, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, badf("malformed query string: %s", err)
	}
	out := map[string]string{}
	for k, d := range nb.Params {
		if k != "dir" {
			out[k] = d
		}
	}
	var unknown []string
	names := make([]string, 0, len(v))
	for k := range v {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if k == "dir" {
			return nil, badf("dir is reserved: it is always the snapshot folder")
		}
		if _, ok := nb.Params[k]; !ok {
			unknown = append(unknown, k)
			continue
		}
		if len(v[k]) > 1 {
			return nil, badf("%s is given %d times", k, len(v[k]))
		}
		val := v[k][0]
		if len(val) > maxParamLen {
			return nil, badf("%s is too long", k)
		}
		if !utf8.ValidString(val) || strings.ContainsRune(val, 0) {
			return nil, badf("%s is not valid text", k)
		}
		if val != "" {
			out[k] = val
		}
	}
	if len(unknown) > 0 {
		declared := slices.DeleteFunc(nb.ParamNames(), func(k string) bool { return k == "dir" })
		msg := "none"
		if len(declared) > 0 {
			msg = strings.Join(declared, ", ")
		}
		return nil, badf("unknown parameter %s: this notebook takes %s", strings.Join(unknown, ", "), msg)
	}
	return out, nil
}

// notebookPage is a rendered notebook, as cached.
type notebookPage struct {
	html      []byte
	styleHash string // CSP source for the page's one inline <style> block, or ""
}

// handleNotebook is GET /notebooks/{name}: the notebook run live on the
// locked engine with the query string's parameters, as its own standalone
// page (the notebooks package's HTML, plus a bar to get back and re-run
// with other parameters). Pages are cached by (catalog version, notebook
// file content, parameters).
func (s *Server) handleNotebook(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	n, ok := s.findNotebook(name)
	if !ok {
		s.errorPage(w, http.StatusNotFound, "no notebook "+name+": the overview lists the notebooks")
		return
	}
	if n.Err != "" {
		s.errorPage(w, http.StatusInternalServerError, "notebook "+n.Key+" does not parse: "+n.Err)
		return
	}
	src, err := n.source()
	if err != nil {
		s.errorPage(w, http.StatusInternalServerError, "read notebook "+n.Key+": "+s.clean(err))
		return
	}
	nb, err := notebooks.Parse(n.Key, src)
	if err != nil {
		s.errorPage(w, http.StatusInternalServerError, "notebook "+n.Key+" does not parse: "+s.clean(err))
		return
	}
	params, err := notebookParams(nb, r.URL.RawQuery)
	if err != nil {
		s.errorPage(w, errorStatus(err), s.clean(err))
		return
	}
	page, err := s.notebookFor(r.Context(), n, src, nb, params)
	if err != nil {
		if errors.Is(err, errBusy) {
			w.Header().Set("Retry-After", "1")
		}
		s.errorPage(w, errorStatus(err), s.clean(err))
		return
	}
	if page.styleHash != "" {
		w.Header().Set("Content-Security-Policy", strings.Replace(contentSecurityPolicy,
			"style-src 'self'", "style-src 'self' '"+page.styleHash+"'", 1))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write(page.html)
}

// notebookFor runs and renders a notebook, or returns the cached page of
// the current catalog version.
func (s *Server) notebookFor(ctx context.Context, n servedNotebook, src []byte, nb *notebooks.Notebook, params map[string]string) (*notebookPage, error) {
	sum := sha256.Sum256(src)
	pj, _ := json.Marshal(params) // map keys are sorted
	version := s.engine.Version()
	key := "notebook\x00" + n.Key + "\x00" + hex.EncodeToString(sum[:]) + "\x00" + string(pj)
	if c, ok := s.cache.get(version, key); ok && c.notebook != nil {
		s.metrics.cache("notebooks", true)
		return c.notebook, nil
	}
	s.metrics.cache("notebooks", false)
	release, err := s.checkSlot()
	if err != nil {
		return nil, err
	}
	// The whole notebook stays well inside the HTTP server's write timeout;
	// each cell is bounded by the engine's query timeout as well. The
	// answer comes at the latest 5% past the notebook's deadline, even if
	// DuckDB is slow to notice it (see within).
	total := s.opts.QueryTimeout * time.Duration(len(queries.CheckNames))
	rctx, cancel := context.WithTimeout(ctx, total)
	defer cancel()
	wctx, wcancel := context.WithTimeout(ctx, total+total/20)
	defer wcancel()
	page, err := within(wctx, s.opts.worker, release, func() (*notebookPage, error) {
		res := notebooks.Run(rctx, s.engine, nb, params)
		if err := ctx.Err(); err != nil {
			return nil, err // the client went away
		}
		transient := rctx.Err() != nil
		// No absolute paths on the page: the folder is named by its base name,
		// and messages and substituted SQL lose the prefix.
		res.Dir = filepath.Base(s.engine.Dir())
		for _, c := range res.Cells {
			if c.Transient() {
				transient = true
			}
			if c.ErrKind == notebooks.ErrMemory {
				// As the SQL endpoint says it (clean): the memory a
				// query may hold here is the operator's to give.
				c.Err += ", " + queries.ServeMemoryHint
			}
			c.Err, c.ChartErr, c.SQL = s.cleanText(c.Err), s.cleanText(c.ChartErr), s.cleanSQL(c.SQL)
		}
		var buf bytes.Buffer
		if err := notebooks.RenderHTML(&buf, res); err != nil {
			return nil, fmt.Errorf("render notebook %s: %w", n.Key, err)
		}
		page, err := s.decorateNotebook(buf.Bytes(), n, nb, params)
		if err != nil {
			return nil, err
		}
		if !transient {
			s.cache.put(version, key, cached{notebook: page})
		}
		return page, nil
	})
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("%w of %s for the whole notebook", queries.ErrTimeout, total)
	}
	return page, err
}

// cleanText removes the snapshot folder's path from a text, like clean.
func (s *Server) cleanText(msg string) string {
	for _, p := range s.strip {
		msg = strings.ReplaceAll(msg, p+string(filepath.Separator), "")
		msg = strings.ReplaceAll(msg, p, "the snapshot folder")
	}
	return msg
}

// cleanSQL removes the snapshot folder's path from a cell's SQL as run:
// {{dir}} became the folder's path, shown as …/ and its base name (as the
// page's header names the folder), so '…/snaps' || '/orders.csv' still
// reads as the file it is.
func (s *Server) cleanSQL(q string) string {
	for _, p := range s.strip {
		if filepath.IsAbs(p) { // a relative spelling ("snaps") may be a word of the SQL
			q = strings.ReplaceAll(q, p, "…/"+filepath.Base(p))
		}
	}
	return q
}

// notebookBar is what templates/notebookbar.html gets.
type notebookBar struct {
	Key    string
	Title  string
	Source string
	Action string
	Params []notebookField
	Topics []string
}

type notebookField struct {
	Name, Value, Default string
	Topic                bool // offer the topics as suggestions
}

// decorateNotebook adds to the notebooks package's standalone page a link
// to the server's small stylesheet for the bar, and the bar itself (back to
// the overview, a form to re-run with other parameters), and works out the
// hash of its inline <style> block for the page's CSP. The package's HTML
// is otherwise served as is.
func (s *Server) decorateNotebook(page []byte, n servedNotebook, nb *notebooks.Notebook, params map[string]string) (*notebookPage, error) {
	bar := notebookBar{Key: n.Key, Title: nb.Title, Source: n.Source, Action: n.Link}
	for _, k := range nb.ParamNames() {
		if k == "dir" {
			continue
		}
		bar.Params = append(bar.Params, notebookField{Name: k, Value: params[k], Default: nb.Params[k],
			Topic: k == "topic" || strings.HasSuffix(k, "_topic")})
	}
	for _, t := range s.engine.Topics() {
		bar.Topics = append(bar.Topics, t.Name)
	}
	var b bytes.Buffer
	if err := s.pages.sets["notebookbar.html"].ExecuteTemplate(&b, "notebookbar.html", bar); err != nil {
		return nil, fmt.Errorf("render notebook bar: %w", err)
	}
	out := &notebookPage{}
	if i := bytes.Index(page, []byte("<style>")); i >= 0 {
		if j := bytes.Index(page[i:], []byte("</style>")); j >= 0 {
			sum := sha256.Sum256(page[i+len("<style>") : i+j])
			out.styleHash = "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
		}
	}
	page = insertAfterFirst(page, "", "</head>", `<link rel="stylesheet" href="/static/notebook.css">`+"\n")
	page = insertAfterFirst(page, "<body>", "", "\n"+b.String())
	out.html = page
	return out, nil
}

// insertAfterFirst inserts s after the first occurrence of after, or
// before the first occurrence of before (exactly one of them is set). The
// page is returned unchanged when the mark is missing.
func insertAfterFirst(page []byte, after, before, s string) []byte {
	mark, off := after, len(after)
	if mark == "" {
		mark, off = before, 0
	}
	i := bytes.Index(page, []byte(mark))
	if i < 0 {
		return page
	}
	i += off
	out := make([]byte, 0, len(page)+len(s))
	out = append(out, page[:i]...)
	out = append(out, s...)
	return append(out, page[i:]...)
}
