package catalog

import (
	"fmt"

	"github.com/parquet-go/parquet-go"
)

// Decoding Parquet rows into Rows without reflection. parquet-go's
// GenericReader reconstructs each Row through reflection, which costs as
// much as reading the pages; restore reads every column of every record,
// so ScanDataFile reads parquet.Rows (flat values tagged with their leaf
// column, definition and repetition levels) and assigns them here. The
// leaf columns are looked up by path in Row's schema once, so a column
// added to Row is refused at start (decodeColumns panics in init) rather
// than silently left out. TestDecodeMatchesReconstruct holds the two paths
// to the same Rows: nulls, empty values, headers with null values,
// markers, schema ids, decoded keys and values.

type rowColumns struct {
	partition, offset, timestamp, timestampType, key, value, headerKey, headerValue,
	leaderEpoch, producerID, producerEpoch, transactional, control, controlType, txnState, schemaID int
	valueDecoded, valueDecodeError, keySchemaID, keyDecoded, keyDecodeError        int
	headerKeyDef, headerValueDef, keyDef, valueDef, valueDecodedDef, keyDecodedDef int
	count                                                                          int
}

var cols = decodeColumns()

func decodeColumns() rowColumns {
	leaf := func(path ...string) (int, int) {
		l, ok := schema.Lookup(path...)
		if !ok {
			panic(fmt.Sprintf("catalog: no column %v in Row's schema", path))
		}
		return l.ColumnIndex, l.MaxDefinitionLevel
	}
	var c rowColumns
	c.partition, _ = leaf("partition")
	c.offset, _ = leaf("offset")
	c.timestamp, _ = leaf("timestamp")
	c.timestampType, _ = leaf("timestamp_type")
	c.key, c.keyDef = leaf("key")
	c.value, c.valueDef = leaf("value")
	c.headerKey, c.headerKeyDef = leaf("headers", "list", "element", "key")
	c.headerValue, c.headerValueDef = leaf("headers", "list", "element", "value")
	c.leaderEpoch, _ = leaf("leader_epoch")
	c.producerID, _ = leaf("producer_id")
	c.producerEpoch, _ = leaf("producer_epoch")
	c.transactional, _ = leaf("is_transactional")
	c.control, _ = leaf("is_control")
	c.controlType, _ = leaf("control_type")
	c.txnState, _ = leaf("txn_state")
	c.schemaID, _ = leaf("schema_id")
	c.valueDecoded, c.valueDecodedDef = leaf("value_decoded")
	c.valueDecodeError, _ = leaf("value_decode_error")
	c.keySchemaID, _ = leaf("key_schema_id")
	c.keyDecoded, c.keyDecodedDef = leaf("key_decoded")
	c.keyDecodeError, _ = leaf("key_decode_error")
	c.count = len(schema.Columns())
	if c.count != 21 {
		panic(fmt.Sprintf("catalog: Row has %d columns and decodeRow assigns 21: teach decodeRow the new ones", c.count))
	}
	return c
}

// interned keeps one copy of the few distinct values of a dictionary column
// (timestamp types, control types, transaction states) per scan.
type interned map[string]*string

func (s interned) of(b []byte) *string {
	if p, ok := s[string(b)]; ok {
		return p
	}
	v := string(b)
	s[v] = &v
	return &v
}

// fresh copies b: the values of a parquet.Row point into page buffers the
// reader reuses. A non-null empty value stays non-nil.
func fresh(b []byte) []byte {
	out := make([]byte, len(b))
	copy(out, b)
	return out
}

// decodeRow assigns the values of one parquet.Row of Row's schema to r.
func decodeRow(pr parquet.Row, r *Row, dict interned) {
	hv := 0
	for _, v := range pr {
		switch v.Column() {
		case cols.partition:
			r.Partition = v.Int32()
		case cols.offset:
			r.Offset = v.Int64()
		case cols.timestamp:
			r.Timestamp = v.Int64()
		case cols.timestampType:
			r.TimestampType = *dict.of(v.ByteArray())
		case cols.key:
			if v.DefinitionLevel() == cols.keyDef {
				r.Key = fresh(v.ByteArray())
			}
		case cols.value:
			if v.DefinitionLevel() == cols.valueDef {
				r.Value = fresh(v.ByteArray())
			}
		case cols.headerKey:
			if v.DefinitionLevel() == cols.headerKeyDef {
				r.Headers = append(r.Headers, Header{Key: string(v.ByteArray())})
			} else {
				r.Headers = []Header{} // no header: an empty list, as parquet-go gives it
			}
		case cols.headerValue:
			if v.DefinitionLevel() >= cols.headerKeyDef { // an element: its value may be null
				if v.DefinitionLevel() == cols.headerValueDef {
					r.Headers[hv].Value = fresh(v.ByteArray())
				}
				hv++
			}
		case cols.leaderEpoch:
			r.LeaderEpoch = v.Int32()
		case cols.producerID:
			r.ProducerID = v.Int64()
		case cols.producerEpoch:
			r.ProducerEpoch = v.Int32()
		case cols.transactional:
			r.Transactional = v.Boolean()
		case cols.control:
			r.Control = v.Boolean()
		case cols.controlType:
			if !v.IsNull() {
				r.ControlType = dict.of(v.ByteArray())
			}
		case cols.txnState:
			if !v.IsNull() {
				r.TxnState = dict.of(v.ByteArray())
			}
		case cols.schemaID:
			if !v.IsNull() {
				id := v.Int32()
				r.SchemaID = &id
			}
		case cols.valueDecoded:
			if v.DefinitionLevel() == cols.valueDecodedDef {
				r.ValueDecoded = fresh(v.ByteArray())
			}
		case cols.valueDecodeError:
			if !v.IsNull() {
				r.ValueDecodeError = dict.of(v.ByteArray())
			}
		case cols.keySchemaID:
			if !v.IsNull() {
				id := v.Int32()
				r.KeySchemaID = &id
			}
		case cols.keyDecoded:
			if v.DefinitionLevel() == cols.keyDecodedDef {
				r.KeyDecoded = fresh(v.ByteArray())
			}
		case cols.keyDecodeError:
			if !v.IsNull() {
				r.KeyDecodeError = dict.of(v.ByteArray())
			}
		}
	}
}
