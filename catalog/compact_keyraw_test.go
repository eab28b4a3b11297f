package catalog

import (
	"bytes"
	"os"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
)

// rowBeforeKeyRaw is Row as files written before header keys that are not
// UTF-8 were stored as bytes hold it: no headers.key_raw.
type rowBeforeKeyRaw struct {
	Partition     int32  `parquet:"partition,delta"`
	Offset        int64  `parquet:"offset,delta"`
	Timestamp     int64  `parquet:"timestamp,timestamp(millisecond),delta"`
	TimestampType string `parquet:"timestamp_type,dict"`
	Key           []byte `parquet:"key,optional"`
	Value         []byte `parquet:"value,optional"`
	Headers       []struct {
		Key   string `parquet:"key"`
		Value []byte `parquet:"value,optional"`
	} `parquet:"headers,list"`
	LeaderEpoch      int32   `parquet:"leader_epoch,delta"`
	ProducerID       int64   `parquet:"producer_id,delta"`
	ProducerEpoch    int32   `parquet:"producer_epoch,delta"`
	Transactional    bool    `parquet:"is_transactional"`
	Control          bool    `parquet:"is_control"`
	ControlType      *string `parquet:"control_type,optional,dict"`
	TxnState         *string `parquet:"txn_state,optional,dict"`
	SchemaID         *int32  `parquet:"schema_id,optional"`
	ValueDecoded     []byte  `parquet:"value_decoded,optional,string"`
	ValueDecodeError *string `parquet:"value_decode_error,optional,dict"`
	KeySchemaID      *int32  `parquet:"key_schema_id,optional"`
	KeyDecoded       []byte  `parquet:"key_decoded,optional,string"`
	KeyDecodeError   *string `parquet:"key_decode_error,optional,dict"`
}

type typedBeforeKeyRaw struct {
	rowBeforeKeyRaw
	Typed
}

// TestCompactMergesFilesWrittenBeforeKeyRaw: files written before header
// keys were stored as bytes (key_raw) have another layout than today's,
// and compaction left every run holding one as it was ("... has another
// layout than the files this build writes"): no folder dumped before
// could be compacted with what was dumped after. Such a file's rows are
// now converted (key_raw null beside each key, or the bytes of a key
// that is not UTF-8, which the older file held as text DuckDB refuses)
// and merged, typed files too; every row reads back as it was, and the
// merged file's count of keys stored as bytes is verify's.
func TestCompactMergesFilesWrittenBeforeKeyRaw(t *testing.T) {
	for _, typed := range []bool{false, true} {
		d, err := Create(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		tp := TopicPartition{"events", 0}
		writeSmallFiles(t, d, tp, 6, 40, typed, false)
		m, err := d.ReadManifest(t.Context(), tp)
		if err != nil {
			t.Fatal(err)
		}
		var want []Row
		for _, fe := range m.Files {
			rows, err := ReadDataFile(d.FilePath(tp, fe.Name))
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, rows...)
		}
		// The first three files as a build before key_raw wrote them.
		old := withCodec(parquet.SchemaOf(rowBeforeKeyRaw{}), snappyCodec, "value_decoded", "key_decoded")
		if typed {
			old = withCodec(parquet.SchemaOf(typedBeforeKeyRaw{}), snappyCodec, append(typedCodecColumns(), "value")...)
		}
		for i := range 3 {
			fe := &m.Files[i]
			path := d.FilePath(tp, fe.Name)
			now := rawRows(t, d, &Manifest{Topic: tp.Topic, Partition: tp.Partition, Files: []FileEntry{*fe}})
			for j, r := range now {
				var o parquet.Row
				var keys []int // where each header's key is in o
				for _, v := range r {
					switch c := v.Column(); {
					case c == 6:
						keys = append(keys, len(o))
						o = append(o, v)
					case c == 8: // key_raw: an old file holds such a key in key
						at := keys[0]
						keys = keys[1:]
						if k := o[at]; !v.IsNull() {
							o[at] = parquet.ByteArrayValue(v.ByteArray()).Level(k.RepetitionLevel(), k.DefinitionLevel(), 6)
						}
					case c > 8:
						o = append(o, v.Level(v.RepetitionLevel(), v.DefinitionLevel(), c-1))
					default:
						o = append(o, v)
					}
				}
				now[j] = o
			}
			var buf bytes.Buffer
			w := parquet.NewWriter(&buf, old)
			if _, err := w.WriteRows(now); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			fe.Bytes, fe.RawHeaderKeys = int64(buf.Len()), 0
		}
		if err := d.WriteManifest(t.Context(), m); err != nil {
			t.Fatal(err)
		}
		st, err := d.Compact(t.Context(), CompactOptions{TargetBytes: DefaultCompactTarget, MinAge: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		after, err := d.ReadManifest(t.Context(), tp)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Skipped) > 0 || len(after.Files) != 1 {
			t.Fatalf("typed %v: %d files after, skipped %v", typed, len(after.Files), st.Skipped)
		}
		got, err := ReadDataFile(d.FilePath(tp, after.Files[0].Name))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("typed %v: %d rows after, %d before; they differ", typed, len(got), len(want))
		}
		// The keys that are not UTF-8, held as text by the older files,
		// are stored as bytes in the merged one, and counted.
		var raw int64
		for _, r := range want {
			for _, h := range r.Headers {
				if !utf8.ValidString(h.Key) {
					raw++
				}
			}
		}
		if raw == 0 || after.Files[0].RawHeaderKeys != raw {
			t.Fatalf("typed %v: raw_header_keys %d, want %d", typed, after.Files[0].RawHeaderKeys, raw)
		}
		if err := checkDataFile(d.FilePath(tp, after.Files[0].Name), after.Files[0]); err != nil {
			t.Fatalf("typed %v: verify: %v", typed, err)
		}
	}
}
