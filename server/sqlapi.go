package server

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

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
		httpError(w, r, http.StatusBadRequest, "no SQL given: send {\"sql\": \"SELECT ...\"}")
		return
	}
	if req.Format == "" {
		req.Format = "json"
	}
	write, ok := resultWriters[req.Format]
	if !ok {
		httpError(w, r, http.StatusBadRequest, fmt.Sprintf("unknown format %q: use json, csv or arrow", req.Format))
		return
	}
	select {
	case s.sqlSlots <- struct{}{}:
		defer func() { <-s.sqlSlots }()
	default:
		w.Header().Set("Retry-After", "1")
		httpError(w, r, http.StatusTooManyRequests, fmt.Sprintf("%d queries are already running: try again in a moment", cap(s.sqlSlots)))
		return
	}
	start := time.Now()
	rows, err := s.engine.Query(r.Context(), req.SQL)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer rows.Close()
	res, err := readResult(rows.Rows, s.opts.MaxRows)
	if err != nil {
		if time.Since(start) >= s.opts.QueryTimeout || errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w of %s", queries.ErrTimeout, s.opts.QueryTimeout)
		}
		s.fail(w, r, err)
		return
	}
	var buf bytes.Buffer
	contentType, err := write(&buf, res)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("X-Topicsnap-Rows", strconv.Itoa(len(res.rows)))
	h.Set("X-Topicsnap-Truncated", strconv.FormatBool(res.truncated))
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes())
}

// readSQLRequest reads a JSON body, or a form.
func readSQLRequest(r *http.Request) (sqlRequest, error) {
	var req sqlRequest
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "application/json" {
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return req, err
			}
			return req, &badRequest{"the body is not JSON like {\"sql\": \"SELECT 1\", \"format\": \"json\"}"}
		}
		return req, nil
	}
	if err := r.ParseForm(); err != nil {
		return req, err
	}
	return sqlRequest{SQL: r.PostForm.Get("sql"), Format: r.PostForm.Get("format")}, nil
}

// result is a query's rows, read into memory.
type result struct {
	columns   []string
	types     []string // DuckDB type names
	rows      [][]any
	truncated bool
}

// readResult reads at most maxRows rows and about maxResultBytes.
func readResult(rows *sql.Rows, maxRows int) (*result, error) {
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
		if len(res.rows) >= maxRows || size >= maxResultBytes {
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
		for _, v := range vals {
			size += approxSize(v)
		}
		res.rows = append(res.rows, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, queries.CleanError(err)
	}
	return res, nil
}

func approxSize(v any) int {
	switch x := v.(type) {
	case string:
		return len(x) + 8
	case []byte:
		return len(x) + 8
	case map[string]any, []any:
		b, _ := json.Marshal(queries.JSONValue(x))
		return len(b)
	}
	return 16
}

type resultWriter func(*bytes.Buffer, *result) (contentType string, err error)

var resultWriters = map[string]resultWriter{
	"json":  writeResultJSON,
	"csv":   writeResultCSV,
	"arrow": writeResultArrow,
}

// writeResultJSON writes an array of objects, keys in column order.
func writeResultJSON(buf *bytes.Buffer, res *result) (string, error) {
	buf.WriteByte('[')
	for i, row := range res.rows {
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
			b, err := json.Marshal(queries.JSONValue(v))
			if err != nil {
				return "", fmt.Errorf("encode column %s: %w", res.columns[j], err)
			}
			buf.Write(b)
		}
		buf.WriteByte('}')
	}
	buf.WriteString("\n]\n")
	return "application/json; charset=utf-8", nil
}

func writeResultCSV(buf *bytes.Buffer, res *result) (string, error) {
	cw := csv.NewWriter(buf)
	cw.Write(res.columns)
	rec := make([]string, len(res.columns))
	for _, row := range res.rows {
		for i, v := range row {
			rec[i] = cellText(v)
			if v == nil {
				rec[i] = ""
			}
		}
		cw.Write(rec)
	}
	cw.Flush()
	return "text/csv; charset=utf-8", cw.Error()
}
