//go:build duckdb_arrow

package queries

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
)

// ArrowRows is a running query's result as Arrow record batches, made by
// DuckDB's own Arrow conversion (duckdb-go's Arrow interface, which needs
// the build tag duckdb_arrow). The types are DuckDB's: DECIMAL(p,s) is a
// decimal128 of the same precision and scale, STRUCT, LIST, MAP and ENUM
// stay a struct, list, map and dictionary, BLOB is binary, TIMESTAMPTZ a
// microsecond timestamp with the session's time zone, INTERVAL a
// month-day-nano interval, and a NULL is a null at any depth. The engine
// sets arrow_lossless_conversion, so a type without an Arrow twin is never
// squeezed into a near one: UUID and JSON are the canonical arrow.uuid
// and arrow.json extensions, HUGEINT and UHUGEINT the canonical
// arrow.opaque extension (metadata {"type_name":"hugeint","vendor_name":
// "DuckDB"}) over their 16 bytes, little-endian. Close releases the
// connection.
type ArrowRows struct {
	array.RecordReader
	conn   *sql.Conn
	cancel context.CancelFunc
	reset  func()
}

// Close ends the query and frees its connection.
func (r *ArrowRows) Close() error {
	r.RecordReader.Release()
	err := r.RecordReader.Err()
	r.reset()
	r.cancel()
	r.conn.Close()
	return err
}

// QueryArrow runs one query as Query does (the guard and the timeout of a
// locked engine, the lazy build, the narrowed value) and returns its
// result as Arrow record batches.
func (e *Engine) QueryArrow(ctx context.Context, q string, args ...any) (*ArrowRows, error) {
	qctx, conn, doc, cancel, err := e.begin(ctx, q)
	if err != nil {
		return nil, err
	}
	rr, reset, err := queryLazy(e, qctx, conn, q, doc, arrowQuery, args...)
	if err != nil {
		err = e.queryError(qctx, err)
		cancel()
		conn.Close()
		return nil, err
	}
	return &ArrowRows{RecordReader: rr, conn: conn, cancel: cancel, reset: reset}, nil
}

// arrowQuery is a runner (query.go) that asks duckdb-go for Arrow.
func arrowQuery(ctx context.Context, conn *sql.Conn, q string, args ...any) (array.RecordReader, error) {
	var rr array.RecordReader
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("arrow: %T is not a database/sql driver connection", dc)
		}
		a, err := duckdb.NewArrowFromConn(c)
		if err != nil {
			return fmt.Errorf("arrow: %w", err)
		}
		rr, err = a.QueryContext(ctx, q, args...)
		return err
	})
	return rr, err
}
