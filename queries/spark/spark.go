// Package spark is topicsnap's client of an Apache Spark Connect server:
// the one place that talks to Spark, as package queries is the one place
// that holds a DuckDB connection.
//
// It knows nothing of checks or topics. A Session runs SQL text (Exec for
// statements, Query for rows) and gives each value back as the Go type
// DuckDB's driver gives for the same SQL type (BIGINT as int64, INT as
// int32, DOUBLE as float64, DECIMAL as a duckdb.Decimal of every digit,
// TIMESTAMP as a time.Time in UTC, BINARY as []byte, ARRAY as []any,
// STRUCT as map[string]any), so that package
// queries judges a row the same whichever engine computed it.
//
// The session is set up to read the SQL both engines accept: double quotes
// quote identifiers (spark.sql.ansi.doubleQuotedIdentifiers), times are in
// UTC, ANSI mode is on. Values never enter SQL text as typed by a user:
// Literal renders Go values as Spark literals that need no escaping (a
// string is its UTF-8 bytes in hex).
//
//	s, err := spark.Connect(ctx, "sc://127.0.0.1:15002")
//	defer s.Close()
//	cols, rows, err := s.Query(ctx, `SELECT 1 AS "one"`)
package spark

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/spark-connect-go/spark/sparkerrors"
	sparksql "github.com/apache/spark-connect-go/spark/sql"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/topicsnap/topicsnap/internal/display"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// ErrUnreachable marks a Spark Connect server that could not be reached
// (nothing listening, a wrong address, a server that is not Spark Connect).
var ErrUnreachable = exit.New(exit.Unreachable, "spark connect server unreachable",
	"start a Spark Connect server that sees this folder at the same path (scripts/spark.sh start runs one on this machine) and pass its address with --spark-remote sc://HOST:PORT")

// ErrBadRemote marks a remote address that is not sc://HOST:PORT.
var ErrBadRemote = errors.New("bad spark remote")

// Error is an error Spark reported for a statement: its error class (e.g.
// UNRESOLVED_COLUMN.WITH_SUGGESTION) and message.
type Error struct {
	Class string
	Msg   string
}

// RefusedStatement marks an Error as Spark's refusal of a statement
// (queries.RemoteRefusal): the server answered.
func (e *Error) RefusedStatement() {}

func (e *Error) Error() string {
	if e.Class != "" && !strings.Contains(e.Msg, "["+e.Class+"]") {
		return "[" + e.Class + "] " + e.Msg
	}
	return e.Msg
}

// Session is one Spark Connect session: its temporary views and settings
// are its own.
type Session struct {
	s      sparksql.SparkSession
	remote string
}

// settings are the session's SQL settings (see the package doc).
var settings = [][2]string{
	{"spark.sql.ansi.enabled", "true"},
	{"spark.sql.ansi.doubleQuotedIdentifiers", "true"},
	{"spark.sql.session.timeZone", "UTC"},
	{"spark.sql.variant.allowDuplicateKeys", "true"}, // as DuckDB's json_valid
}

// ParseRemote checks that remote is sc://HOST:PORT (Spark Connect's own
// form; a path or parameters after it are Spark Connect's too).
func ParseRemote(remote string) error {
	u, err := url.Parse(remote)
	if err != nil || u.Scheme != "sc" || u.Hostname() == "" || u.Port() == "" {
		return fmt.Errorf("%w %q: use sc://HOST:PORT (a Spark Connect server's address, e.g. sc://127.0.0.1:15002)", ErrBadRemote, remote)
	}
	return nil
}

// Connect opens a session on the Spark Connect server at remote
// (sc://HOST:PORT) and sets it up; the server must answer.
func Connect(ctx context.Context, remote string) (*Session, error) {
	if err := ParseRemote(remote); err != nil {
		return nil, err
	}
	s, err := sparksql.NewSessionBuilder().Remote(remote).Build(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrUnreachable, remote, err)
	}
	sess := &Session{s: s, remote: remote}
	for _, kv := range settings {
		if err := s.Config().Set(ctx, kv[0], kv[1]); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%w at %s (setting %s): %v", ErrUnreachable, remote, kv[0], clean(err))
		}
	}
	return sess, nil
}

// Remote is the server's address.
func (s *Session) Remote() string { return s.remote }

// Dialect is "spark": package queries runs its NAME.spark.sql variants here.
func (s *Session) Dialect() string { return "spark" }

// Literal is the package's Literal, for package queries' Remote.
func (s *Session) Literal(v any) (string, error) { return Literal(v) }

// Close ends the session (its temporary views go with it).
func (s *Session) Close() error { return s.s.Stop() }

// Exec runs a statement that returns no rows (CREATE TEMPORARY VIEW, SET).
func (s *Session) Exec(ctx context.Context, stmt string) error {
	if _, err := s.s.Sql(ctx, stmt); err != nil {
		return s.err(ctx, err)
	}
	return nil
}

// Query runs a SELECT and returns its column names and rows, each value
// as DuckDB's driver gives the same SQL type (see the package doc).
func (s *Session) Query(ctx context.Context, stmt string) ([]string, [][]any, error) {
	df, err := s.s.Sql(ctx, stmt)
	if err != nil {
		return nil, nil, s.err(ctx, err)
	}
	tbl, err := df.ToArrow(ctx)
	if err != nil {
		return nil, nil, s.err(ctx, err)
	}
	t := *tbl
	defer t.Release()
	schema := t.Schema()
	cols := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		cols[i] = f.Name
	}
	rows := make([][]any, t.NumRows())
	for i := range rows {
		rows[i] = make([]any, len(cols))
	}
	for c := 0; c < len(cols); c++ {
		r := 0
		for _, chunk := range t.Column(c).Data().Chunks() {
			for i := 0; i < chunk.Len(); i++ {
				v, err := value(chunk, i)
				if err != nil {
					return nil, nil, fmt.Errorf("read column %s: %w", cols[c], err)
				}
				rows[r][c] = v
				r++
			}
		}
	}
	return cols, rows, nil
}

// err makes a client error typed: the context's own error, ErrUnreachable
// for a server that does not answer, else an *Error with Spark's class.
func (s *Session) err(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, sparkerrors.ConnectionError) {
		return fmt.Errorf("%w at %s: %v", ErrUnreachable, s.remote, err)
	}
	return clean(err)
}

func clean(err error) error {
	var se *sparkerrors.SparkError
	if errors.As(err, &se) {
		if se.ErrorClass == "" && (se.Code.String() == "Unavailable" || se.Code.String() == "DeadlineExceeded") {
			return fmt.Errorf("%w: %s", ErrUnreachable, se.Message)
		}
		msg := se.Message
		if i := strings.Index(msg, "\n"); i > 0 {
			msg = msg[:i] // the query plan that follows is Spark's, not the user's
		}
		return &Error{Class: se.ErrorClass, Msg: strings.TrimSpace(msg)}
	}
	return err
}

// value reads the i-th value of an Arrow array as DuckDB's driver would
// give the same SQL type.
func value(a arrow.Array, i int) (any, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	switch x := a.(type) {
	case *array.Boolean:
		return x.Value(i), nil
	case *array.Int8:
		return x.Value(i), nil
	case *array.Int16:
		return x.Value(i), nil
	case *array.Int32:
		return x.Value(i), nil
	case *array.Int64:
		return x.Value(i), nil
	case *array.Float32:
		return x.Value(i), nil
	case *array.Float64:
		return x.Value(i), nil
	case *array.String:
		return x.Value(i), nil
	case *array.LargeString:
		return x.Value(i), nil
	case *array.Binary:
		return append([]byte(nil), x.Value(i)...), nil
	case *array.LargeBinary:
		return append([]byte(nil), x.Value(i)...), nil
	case *array.Decimal128:
		// Every digit, as DuckDB's driver gives a DECIMAL: a float64 kept
		// 17 of a decimal(38,10)'s 30.
		dt := x.DataType().(*arrow.Decimal128Type)
		return duckdb.Decimal{Width: uint8(dt.Precision), Scale: uint8(dt.Scale), Value: x.Value(i).BigInt()}, nil
	case *array.Timestamp:
		dt := x.DataType().(*arrow.TimestampType)
		return x.Value(i).ToTime(dt.Unit).UTC(), nil
	case *array.Date32:
		// A day, shown as DuckDB's DATE is (2026-12-07), not a
		// timestamp at midnight.
		return display.Date(x.Value(i).ToTime().UTC()), nil
	case *array.List:
		lo, hi := x.ValueOffsets(i)
		out := make([]any, 0, hi-lo)
		for j := lo; j < hi; j++ {
			v, err := value(x.ListValues(), int(j))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case *array.Struct:
		st := x.DataType().(*arrow.StructType)
		out := make(map[string]any, st.NumFields())
		for f := 0; f < st.NumFields(); f++ {
			v, err := value(x.Field(f), i)
			if err != nil {
				return nil, err
			}
			out[st.Field(f).Name] = v
		}
		return out, nil
	case *array.Map:
		lo, hi := x.ValueOffsets(i)
		out := make(map[string]any, hi-lo)
		for j := lo; j < hi; j++ {
			k, err := value(x.Keys(), int(j))
			if err != nil {
				return nil, err
			}
			v, err := value(x.Items(), int(j))
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(k)] = v
		}
		return out, nil
	case *array.Null:
		return nil, nil
	}
	return nil, fmt.Errorf("unsupported Arrow type %s", a.DataType())
}

// Literal renders a Go value as a Spark SQL literal that needs no
// escaping: numbers as numbers, a string as its UTF-8 bytes in hex cast to
// STRING, a time as a TIMESTAMP of its microseconds.
func Literal(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int64:
		return strconv.FormatInt(x, 10) + "L", nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", fmt.Errorf("literal %v: not a finite number", x)
		}
		return "CAST(" + strconv.FormatFloat(x, 'e', -1, 64) + " AS DOUBLE)", nil
	case string:
		return "CAST(X'" + hex.EncodeToString([]byte(x)) + "' AS STRING)", nil
	case []byte:
		return "X'" + hex.EncodeToString(x) + "'", nil
	case time.Time:
		return fmt.Sprintf("timestamp_micros(%dL)", x.UnixMicro()), nil
	}
	return "", fmt.Errorf("literal of type %T: not supported", v)
}
