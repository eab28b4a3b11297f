package server

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// arrowType maps a DuckDB column type to the Arrow type written for it.
// Types without a plain Arrow twin (DECIMAL, HUGEINT, STRUCT, LIST, MAP,
// UUID, INTERVAL, ...) are written as text, JSON for nested values.
func arrowType(duck string) arrow.DataType {
	switch duck {
	case "BOOLEAN":
		return arrow.FixedWidthTypes.Boolean
	case "TINYINT":
		return arrow.PrimitiveTypes.Int8
	case "SMALLINT":
		return arrow.PrimitiveTypes.Int16
	case "INTEGER":
		return arrow.PrimitiveTypes.Int32
	case "BIGINT":
		return arrow.PrimitiveTypes.Int64
	case "UTINYINT":
		return arrow.PrimitiveTypes.Uint8
	case "USMALLINT":
		return arrow.PrimitiveTypes.Uint16
	case "UINTEGER":
		return arrow.PrimitiveTypes.Uint32
	case "UBIGINT":
		return arrow.PrimitiveTypes.Uint64
	case "FLOAT":
		return arrow.PrimitiveTypes.Float32
	case "DOUBLE":
		return arrow.PrimitiveTypes.Float64
	case "BLOB":
		return arrow.BinaryTypes.Binary
	case "DATE":
		return arrow.FixedWidthTypes.Date32
	case "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS":
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case "TIMESTAMPTZ":
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	}
	return arrow.BinaryTypes.String
}

// writeResultArrow writes the result as one record batch in an Arrow IPC
// stream.
// Values are counted as they are appended (valueBytes, the size they have
// as text); the row that would pass maxBytes is left out.
func writeResultArrow(ctx context.Context, buf *bytes.Buffer, res *result, maxBytes int) (string, error) {
	fields := make([]arrow.Field, len(res.columns))
	for i, c := range res.columns {
		fields[i] = arrow.Field{Name: c, Type: arrowType(res.types[i]), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	size := 0
	for n, row := range res.rows {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		rowSize := 0
		for _, v := range row {
			rowSize += valueBytes(v, maxBytes)
		}
		if size+rowSize > maxBytes {
			res.rows, res.truncated = res.rows[:n], true
			break
		}
		size += rowSize
		for i, v := range row {
			if err := appendArrow(rb.Field(i), v); err != nil {
				return "", fmt.Errorf("encode column %s as arrow: %w", res.columns[i], err)
			}
		}
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	w := ipc.NewWriter(buf, ipc.WithSchema(schema))
	if err := w.Write(rec); err != nil {
		return "", fmt.Errorf("write arrow stream: %w", err)
	}
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("write arrow stream: %w", err)
	}
	return "application/vnd.apache.arrow.stream", nil
}

// appendArrow appends one scanned value to the builder of its column.
func appendArrow(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			return fmt.Errorf("want a boolean, got %T", v)
		}
		b.Append(x)
	case *array.Int8Builder:
		n, err := toInt64(v)
		b.Append(int8(n))
		return err
	case *array.Int16Builder:
		n, err := toInt64(v)
		b.Append(int16(n))
		return err
	case *array.Int32Builder:
		n, err := toInt64(v)
		b.Append(int32(n))
		return err
	case *array.Int64Builder:
		n, err := toInt64(v)
		b.Append(n)
		return err
	case *array.Uint8Builder:
		n, err := toUint64(v)
		b.Append(uint8(n))
		return err
	case *array.Uint16Builder:
		n, err := toUint64(v)
		b.Append(uint16(n))
		return err
	case *array.Uint32Builder:
		n, err := toUint64(v)
		b.Append(uint32(n))
		return err
	case *array.Uint64Builder:
		n, err := toUint64(v)
		b.Append(n)
		return err
	case *array.Float32Builder:
		switch x := v.(type) {
		case float32:
			b.Append(x)
		case float64:
			b.Append(float32(x))
		default:
			return fmt.Errorf("want a float, got %T", v)
		}
	case *array.Float64Builder:
		switch x := v.(type) {
		case float64:
			b.Append(x)
		case float32:
			b.Append(float64(x))
		default:
			return fmt.Errorf("want a double, got %T", v)
		}
	case *array.BinaryBuilder:
		switch x := v.(type) {
		case []byte:
			b.Append(x)
		case string:
			b.AppendString(x)
		default:
			return fmt.Errorf("want bytes, got %T", v)
		}
	case *array.Date32Builder:
		t, ok := v.(time.Time)
		if !ok {
			return fmt.Errorf("want a date, got %T", v)
		}
		b.Append(arrow.Date32FromTime(t))
	case *array.TimestampBuilder:
		t, ok := v.(time.Time)
		if !ok {
			return fmt.Errorf("want a time, got %T", v)
		}
		ts, err := arrow.TimestampFromTime(t, arrow.Microsecond)
		if err != nil {
			return err
		}
		b.Append(ts)
	case *array.StringBuilder:
		b.Append(cellText(v))
	default:
		return fmt.Errorf("no arrow encoding for %T", v)
	}
	return nil
}

func toInt64(v any) (int64, error) {
	switch x := v.(type) {
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case int:
		return int64(x), nil
	case *big.Int:
		if x.IsInt64() {
			return x.Int64(), nil
		}
	}
	return 0, fmt.Errorf("want an integer, got %T", v)
}

func toUint64(v any) (uint64, error) {
	switch x := v.(type) {
	case uint8:
		return uint64(x), nil
	case uint16:
		return uint64(x), nil
	case uint32:
		return uint64(x), nil
	case uint64:
		return x, nil
	case uint:
		return uint64(x), nil
	}
	return 0, fmt.Errorf("want an unsigned integer, got %T", v)
}
