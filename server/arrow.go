package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/topicsnap/topicsnap/queries"
)

// format=arrow: the result as an Arrow IPC stream, typed by DuckDB's own
// Arrow conversion (queries.QueryArrow: DECIMAL stays decimal128, STRUCT
// and LIST stay nested, ...). The stream is written batch by batch, each
// batch encoded on its own and copied in only when it fits: no answer
// passes maxBytes, and the batch that would pass it is cut to the rows
// that fit (binary search on its slices), as the other formats leave out
// the row that would pass.

// eos ends an Arrow IPC stream.
var eos = []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}

// runSQLArrow runs q with QueryArrow and writes at most maxRows rows and
// maxBytes bytes of its result.
func (s *Server) runSQLArrow(ctx context.Context, q string, maxRows, maxBytes int) (sqlOut, error) {
	rows, err := s.engine.QueryArrow(ctx, q)
	if err != nil {
		return sqlOut{}, err
	}
	defer rows.Close()
	var buf bytes.Buffer
	n, truncated, err := writeArrow(ctx, &buf, rows, maxRows, maxBytes)
	if err != nil {
		return sqlOut{}, err
	}
	return sqlOut{rows: n, truncated: truncated, buf: &buf, contentType: "application/vnd.apache.arrow.stream"}, nil
}

// recordReader is what writeArrow reads: queries.ArrowRows.
type recordReader interface {
	Schema() *arrow.Schema
	Next() bool
	RecordBatch() arrow.RecordBatch
	Err() error
}

// writeArrow writes the batches of rr into buf as one IPC stream, stopping
// at maxRows rows and before maxBytes bytes; truncated says rows were left
// out. It stops at ctx's deadline.
func writeArrow(ctx context.Context, buf *bytes.Buffer, rr recordReader, maxRows, maxBytes int) (rows int, truncated bool, err error) {
	schema := rr.Schema()
	empty, err := encodeArrow(schema, nil)
	if err != nil {
		return 0, false, err
	}
	head := empty[:len(empty)-len(eos)] // the schema message
	buf.Write(head)
	// messages encodes rec[0:k] alone and returns its messages (a
	// dictionary's, then the batch's), without the schema and the end.
	messages := func(rec arrow.RecordBatch, k int) ([]byte, error) {
		if k == 0 {
			return nil, nil
		}
		part := rec.NewSlice(0, int64(k))
		defer part.Release()
		b, err := encodeArrow(schema, part)
		if err != nil {
			return nil, err
		}
		if !bytes.HasPrefix(b, head) || !bytes.HasSuffix(b, eos) {
			return nil, errors.New("write arrow stream: a batch's stream does not start with the schema's")
		}
		return b[len(head) : len(b)-len(eos)], nil
	}
	for rr.Next() {
		if err := ctx.Err(); err != nil {
			return 0, false, err
		}
		rec := rr.RecordBatch()
		want := int(rec.NumRows())
		if want == 0 {
			continue
		}
		if rows+want > maxRows {
			want, truncated = maxRows-rows, true
		}
		room := maxBytes - buf.Len() - len(eos)
		msg, err := messages(rec, want)
		if err != nil {
			return 0, false, err
		}
		if len(msg) > room {
			// The most rows of this batch that fit: fits(lo), !fits(hi).
			truncated = true
			lo, hi := 0, want
			msg = nil
			for hi-lo > 1 {
				if err := ctx.Err(); err != nil {
					return 0, false, err
				}
				mid := (lo + hi) / 2
				m, err := messages(rec, mid)
				if err != nil {
					return 0, false, err
				}
				if len(m) <= room {
					lo, msg = mid, m
				} else {
					hi = mid
				}
			}
			want = lo
		}
		buf.Write(msg)
		rows += want
		if truncated {
			break
		}
	}
	if err := rr.Err(); err != nil {
		if ctx.Err() != nil {
			return 0, false, ctx.Err()
		}
		return 0, false, queries.CleanError(err)
	}
	buf.Write(eos)
	return rows, truncated, nil
}

// encodeArrow writes schema and rec (when not nil) as a whole IPC stream.
func encodeArrow(schema *arrow.Schema, rec arrow.RecordBatch) ([]byte, error) {
	var b bytes.Buffer
	w := ipc.NewWriter(&b, ipc.WithSchema(schema))
	if rec != nil {
		if err := w.Write(rec); err != nil {
			return nil, fmt.Errorf("write arrow stream: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("write arrow stream: %w", err)
	}
	return b.Bytes(), nil
}
