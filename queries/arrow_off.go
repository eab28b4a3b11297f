//go:build !duckdb_arrow

package queries

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// ArrowRows is, in a build without the tag duckdb_arrow, never made:
// QueryArrow says ErrNoArrow. See arrow.go.
type ArrowRows struct{ array.RecordReader }

// Close does nothing: there is nothing to free.
func (r *ArrowRows) Close() error { return nil }

// QueryArrow says ErrNoArrow: this build has no Arrow (see arrow.go).
func (e *Engine) QueryArrow(ctx context.Context, q string, args ...any) (*ArrowRows, error) {
	return nil, ErrNoArrow
}
