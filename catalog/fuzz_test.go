package catalog

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// fuzzSeeds are manifests and snapshots made by code: valid ones as the
// dump writes them, and each kind of damage the corpus tests name.
func fuzzSeeds(f *testing.F) {
	tp := TopicPartition{"orders", 0}
	m := &Manifest{FormatVersion: FormatVersion, Topic: tp.Topic, Partition: tp.Partition, NextOffset: 30,
		Files: []FileEntry{
			{Name: FileName(0, 9), FirstOffset: 0, LastOffset: 9, Records: 10, ControlRecords: 1, Bytes: 100,
				SchemaIDs: []int32{1}, Decoded: 9, Typed: &TypedColumns{Columns: map[string]string{"id": "typed_i0"}, Untyped: []string{"x"}}},
			{Name: FileName(20, 29), FirstOffset: 20, LastOffset: 29, Records: 5, Bytes: 50},
		},
		Lost:      []LostRange{{Kind: LostBetween, From: 10, To: 19, DetectedAt: time.Unix(1700000000, 0).UTC(), Snapshot: "s1"}},
		Snapshots: []PartitionSnapshot{{ID: "s1", From: 0, Until: 30, Complete: true}},
	}
	good, err := json.Marshal(m)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	for _, change := range []func(m *Manifest){
		func(m *Manifest) { m.Lost[0].From, m.Lost[0].To = 5, -5 },
		func(m *Manifest) { m.Lost[0].From, m.Lost[0].To = math.MinInt64, math.MaxInt64 },
		func(m *Manifest) { m.Lost[0].From, m.Lost[0].To = 0, math.MaxInt64 },
		func(m *Manifest) { m.Files[0].Name = "../../x.parquet" },
		func(m *Manifest) { m.Files[1].FirstOffset, m.Files[1].Name = 5, FileName(5, 29) },
		func(m *Manifest) { m.Files[0].Records = -1 },
		func(m *Manifest) { m.Topic = "../../etc" },
		func(m *Manifest) { m.Partition = -1 },
		func(m *Manifest) { m.FormatVersion = FormatVersion + 1 },
	} {
		c := *m
		c.Files = append([]FileEntry(nil), m.Files...)
		c.Lost = append([]LostRange(nil), m.Lost...)
		change(&c)
		b, _ := json.Marshal(&c)
		f.Add(b)
	}
	f.Add([]byte(`{"files":[` + strings.Repeat(`{},`, 1000) + `{}]}`))
	f.Add([]byte(`not json`))
	for _, s := range []ClusterSnapshot{
		{FormatVersion: FormatVersion, ID: "x", Topic: "orders", PartitionCount: 1, Partitions: []PartitionState{{Partition: 0, HighWatermark: 10}}},
		{FormatVersion: FormatVersion, ID: "../../x", Topic: "orders"},
		{FormatVersion: FormatVersion, ID: "x", Topic: "../x"},
	} {
		b, _ := json.Marshal(&s)
		f.Add(b)
	}
}

// FuzzManifest: any bytes, read as a manifest of orders/0 or as the
// cluster snapshot snapshots/x.json, either decode into one that is safe
// to use (names that are one path element, offsets >= 0, ranges in order
// whose lengths do not overflow, the folder's topic and partition, the
// file's snapshot id) or are refused with a typed error; never a panic.
func FuzzManifest(f *testing.F) {
	fuzzSeeds(f)
	tp := TopicPartition{"orders", 0}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseManifestAt(tp, "/abs/m.json", manifestRel(tp), b)
		if err != nil {
			var me *ManifestError
			if !errors.As(err, &me) || !errors.Is(err, ErrBadManifest) && !errors.Is(err, ErrNewerFormat) {
				t.Fatalf("error of the wrong kind: %v", err)
			}
			if strings.Contains(me.Error(), "/abs/") {
				t.Fatalf("error names the absolute path: %v", err)
			}
		} else {
			if m.TP() != tp || m.NextOffset < -1 {
				t.Fatalf("manifest of another partition accepted: %+v", m)
			}
			prev := int64(-1)
			for _, fe := range m.Files {
				if fe.Name != FileName(fe.FirstOffset, fe.LastOffset) || strings.ContainsAny(fe.Name, `/\`) || fe.FirstOffset <= prev {
					t.Fatalf("file %q accepted", fe.Name)
				}
				if n := fe.LastOffset - fe.FirstOffset + 1; n <= 0 || fe.Records < 0 || fe.Records > n {
					t.Fatalf("file %q of %d records over %d offsets accepted", fe.Name, fe.Records, n)
				}
				prev = fe.LastOffset
			}
			prev = -1
			for _, l := range m.Lost {
				if l.From <= prev || l.To-l.From+1 <= 0 {
					t.Fatalf("lost range %d-%d accepted", l.From, l.To)
				}
				prev = l.To
			}
		}
		s, err := ParseSnapshot("snapshots/x.json", b)
		if err != nil {
			var se *SnapshotError
			if !errors.As(err, &se) || !errors.Is(err, ErrBadManifest) && !errors.Is(err, ErrNewerFormat) {
				t.Fatalf("snapshot error of the wrong kind: %v", err)
			}
			return
		}
		if s.ID != "x" || !ValidTopicName(s.Topic) {
			t.Fatalf("snapshot %q of topic %q accepted from x.json", s.ID, s.Topic)
		}
	})
}
