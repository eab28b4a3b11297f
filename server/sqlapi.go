package server

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/topicsnap/topicsnap/internal/display"
	"github.com/topicsnap/topicsnap/queries"
)

// maxResultBytes bounds a buffered SQL result, whatever MaxRows says.
const maxResultBytes = 32 << 20

type sqlRequest struct {
	SQL    string `json:"sql"`
	Format string `json:"format"`
}

// handleAPISQL is POST /api/sql: one read-only SELECT through the locked
// engine, at most MaxRows rows, as JSON, CSV or an Arrow IPC stream. The
// result is buffered so that an error found mid-way (a timeout) still gets
// its status code. X-Topicsnap-Rows and X-Topicsnap-Truncated tell how many
// rows came and whether more were left out.
func (s *Server) handleAPISQL(w http.ResponseWriter, r *http.Request) {
	if !s.sql {
		httpError(w, r, http.StatusForbidden, "ad-hoc SQL is off on this server")
		return
	}
	req, err := readSQLRequest(r)
	if err != nil {
		s.failBody(w, r, err)
		return
	}
	if strings.TrimSpace(req.SQL) == "" {
		httpError(w, r, http.StatusBadRequest, "no SQL given: send {\"sql\": \"SELECT ...\"} (Content-Type: application/json), or a form field sql")
		return
	}
	if req.Format == "" {
		req.Format = "json"
	}
	write, ok := resultWriters[req.Format]
	if !ok && req.Format != "arrow" { // arrow: runSQLArrow (arrow.go)
		httpError(w, r, http.StatusBadRequest, fmt.Sprintf("unknown format %q: use json, text, csv or arrow", req.Format))
		return
	}
	select {
	case s.sqlSlots <- struct{}{}:
	default:
		w.Header().Set("Retry-After", "1")
		httpError(w, r, http.StatusTooManyRequests, fmt.Sprintf("%d queries are already running: try again in a moment", cap(s.sqlSlots)))
		return
	}
	// One deadline for the query, reading its rows and encoding them: each
	// step checks it, so the answer comes within the timeout plus the
	// longest single step (one row from the driver, one row encoded).
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.QueryTimeout)
	defer cancel()
	out, err := within(ctx, s.opts.worker, func() { <-s.sqlSlots }, func() (sqlOut, error) {
		if req.Format == "arrow" {
			return s.runSQLArrow(ctx, req.SQL, s.opts.MaxRows, maxResultBytes)
		}
		return s.runSQL(ctx, req.SQL, write)
	})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || (errors.Is(err, queries.ErrTimeout) && ctx.Err() != nil) {
			err = fmt.Errorf("%w of %s", queries.ErrTimeout, s.opts.QueryTimeout)
		}
		s.fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", out.contentType)
	h.Set("X-Topicsnap-Rows", strconv.Itoa(out.rows))
	h.Set("X-Topicsnap-Truncated", strconv.FormatBool(out.truncated))
	if len(out.notes) > 0 {
		// What the result cannot say by itself (a topic_state call's
		// unknown keys): a JSON list of strings, percent-encoded.
		b, _ := json.Marshal(out.notes)
		h.Set("X-Topicsnap-Warnings", url.PathEscape(string(b)))
	}
	w.WriteHeader(http.StatusOK)
	w.Write(out.buf.Bytes())
}

// sqlOut is an encoded result: rows of them, and whether more were left
// out.
type sqlOut struct {
	notes       []string // queries.Rows.Notes: shown beside the result
	rows        int
	truncated   bool
	buf         *bytes.Buffer
	contentType string
}

// runSQL runs q and encodes its result with write, within ctx.
func (s *Server) runSQL(ctx context.Context, q string, write resultWriter) (sqlOut, error) {
	rows, err := s.engine.Query(ctx, q)
	if err != nil {
		return sqlOut{}, err
	}
	defer rows.Close()
	res, err := readResult(ctx, rows.Rows, s.opts.MaxRows, maxResultBytes)
	if err != nil {
		return sqlOut{}, err
	}
	var buf bytes.Buffer
	contentType, err := write(ctx, &buf, res, maxResultBytes)
	if err != nil {
		return sqlOut{}, err
	}
	return sqlOut{rows.Notes, len(res.rows), res.truncated, &buf, contentType}, nil
}

// readSQLRequest reads a JSON body, or a form.
func readSQLRequest(r *http.Request) (sqlRequest, error) {
	var req sqlRequest
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	body, err := io.ReadAll(r.Body) // bounded by secure's MaxBytesReader
	if err != nil {
		return req, err
	}
	// JSON when it says so, and when it is plainly JSON whatever it says
	// (curl -d sends a JSON body as a form).
	if ct == "application/json" || strings.HasPrefix(strings.TrimSpace(string(body)), "{") {
		if err := json.Unmarshal(body, &req); err != nil {
			return req, &badRequest{"the body is not JSON like {\"sql\": \"SELECT 1\", \"format\": \"json\"}"}
		}
		return req, nil
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return req, &badRequest{"the body is neither JSON ({\"sql\": \"SELECT 1\"}) nor a form (sql=SELECT+1)"}
	}
	return sqlRequest{SQL: form.Get("sql"), Format: form.Get("format")}, nil
}

// result is a query's rows, read into memory.
type result struct {
	columns   []string
	types     []string // DuckDB type names
	rows      [][]any
	truncated bool
}

// readResult reads at most maxRows rows and at most maxBytes bytes, as
// valueSize counts them. Each row is counted value by value as it is read,
// and the row that would pass maxBytes is left out: no row passes the
// bound, not even the first. It stops at ctx's deadline.
func readResult(ctx context.Context, rows *sql.Rows, maxRows, maxBytes int) (*result, error) {
	cols, err := rows.ColumnTypes()
	if err != nil {
		return nil, queries.CleanError(err)
	}
	res := &result{}
	for _, c := range cols {
		res.columns = append(res.columns, c.Name())
		res.types = append(res.types, c.DatabaseTypeName())
	}
	size := 0
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(res.rows) >= maxRows {
			res.truncated = true
			break
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, queries.CleanError(err)
		}
		for i := range vals {
			vals[i] = display.Typed(res.types[i], vals[i])
		}
		row := 0
		for _, v := range vals {
			row += valueBytes(v, maxBytes-size-row)
			if size+row > maxBytes {
				break
			}
		}
		if size+row > maxBytes {
			res.truncated = true
			break
		}
		size += row
		res.rows = append(res.rows, vals)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := rows.Err(); err != nil {
		return nil, queries.CleanError(err)
	}
	return res, nil
}

// valueBytes estimates a value's size as JSON text, walking nested lists
// and maps only until the estimate passes budget (a list of twenty million
// numbers is not walked to its end to learn that it is too big).
func valueBytes(v any, budget int) int {
	switch x := v.(type) {
	case nil:
		return 4
	case string:
		return len(x) + 2
	case []byte:
		return 2*len(x) + 2 // hex or escapes
	case []any:
		n := 2
		for _, e := range x {
			if n > budget {
				return n
			}
			n += valueBytes(e, budget-n) + 1
		}
		return n
	case map[string]any:
		n := 2
		for k, e := range x {
			if n > budget {
				return n
			}
			n += len(k) + 4 + valueBytes(e, budget-n)
		}
		return n
	case duckdb.OrderedMap:
		n := 2
		vals := x.Values()
		for i, k := range x.Keys() {
			if n > budget || i >= len(vals) {
				return n
			}
			n += valueBytes(k, budget-n) + 2 + valueBytes(vals[i], budget-n)
		}
		return n
	case duckdb.Union:
		return valueBytes(x.Value, budget)
	}
	return 24 // numbers, booleans, times, UUIDs, decimals
}

// A resultWriter encodes a result into buf. It stops at ctx's deadline,
// and it stops before the row that would take buf past maxBytes, cutting
// res.rows to the rows written and setting res.truncated.
type resultWriter func(ctx context.Context, buf *bytes.Buffer, res *result, maxBytes int) (contentType string, err error)

// The formats read from database/sql rows; arrow is read from DuckDB's
// Arrow batches instead (runSQLArrow, arrow.go).
var resultWriters = map[string]resultWriter{
	"json": writeResultJSON,
	"text": writeResultText,
	"csv":  writeResultCSV,
}

// writeResultJSON writes an array of objects, keys in column order.
func writeResultJSON(ctx context.Context, buf *bytes.Buffer, res *result, maxBytes int) (string, error) {
	buf.WriteByte('[')
	for i, row := range res.rows {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		mark := buf.Len()
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n{")
		for j, v := range row {
			if j > 0 {
				buf.WriteByte(',')
			}
			k, _ := json.Marshal(res.columns[j])
			buf.Write(k)
			buf.WriteByte(':')
			b, err := json.Marshal(display.JSON(v))
			if err != nil {
				return "", fmt.Errorf("encode column %s: %w", res.columns[j], err)
			}
			buf.Write(b)
			if buf.Len() > maxBytes {
				break
			}
		}
		buf.WriteByte('}')
		if buf.Len() > maxBytes {
			buf.Truncate(mark)
			res.rows, res.truncated = res.rows[:i], true
			break
		}
	}
	buf.WriteString("\n]\n")
	return "application/json; charset=utf-8", nil
}

func writeResultCSV(ctx context.Context, buf *bytes.Buffer, res *result, maxBytes int) (string, error) {
	cw := csv.NewWriter(buf)
	cw.Write(res.columns)
	cw.Flush()
	rec := make([]string, len(res.columns))
	for n, row := range res.rows {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		mark := buf.Len()
		for i, v := range row {
			rec[i] = display.Field(v)
		}
		cw.Write(rec)
		cw.Flush()
		if buf.Len() > maxBytes {
			buf.Truncate(mark)
			res.rows, res.truncated = res.rows[:n], true
			break
		}
	}
	return "text/csv; charset=utf-8", cw.Error()
}

// writeResultText is writeResultJSON with every value as the text the
// SQL page shows (display.Text: a header's UTF-8 value as text, BLOBs as
// \xHH escapes), NULL as null. The page asks for it; json keeps values
// exact (BLOBs in base64).
func writeResultText(ctx context.Context, buf *bytes.Buffer, res *result, maxBytes int) (string, error) {
	text := &result{columns: res.columns, types: res.types, rows: make([][]any, len(res.rows))}
	for i, row := range res.rows {
		out := make([]any, len(row))
		for j, v := range row {
			if v != nil {
				out[j] = display.Text(v)
			}
		}
		text.rows[i] = out
	}
	ct, err := writeResultJSON(ctx, buf, text, maxBytes)
	res.rows, res.truncated = res.rows[:len(text.rows)], res.truncated || text.truncated
	return ct, err
}
