package catalog

import (
	"errors"
	"testing"
)

// FuzzManifest: any bytes either decode into a manifest that validates
// (safe topic name, files in order, names matching ranges) or are refused
// with ErrBadManifest or ErrNewerFormat; never a panic.
func FuzzManifest(f *testing.F) {
	f.Add([]byte(`{"format_version":1,"topic":"t","partition":0,"next_offset":5,"files":[{"name":"00000000000000000000-00000000000000000004.parquet","first_offset":0,"last_offset":4,"records":5}]}`))
	f.Add([]byte(`{"format_version":2,"topic":"t"}`))
	f.Add([]byte(`{"topic":"../../etc","partition":0}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseManifest("m.json", b)
		if err != nil {
			if !errors.Is(err, ErrBadManifest) && !errors.Is(err, ErrNewerFormat) {
				t.Fatalf("error of the wrong kind: %v", err)
			}
			return
		}
		if !ValidTopicName(m.Topic) || m.Partition < 0 {
			t.Fatalf("unsafe manifest accepted: %+v", m)
		}
		for _, fe := range m.Files {
			if fe.Name != FileName(fe.FirstOffset, fe.LastOffset) {
				t.Fatalf("file name %q accepted", fe.Name)
			}
		}
	})
}
