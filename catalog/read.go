package catalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/parquet-go/parquet-go"
)

// Marker is a transaction control record of one partition.
type Marker struct {
	Offset     int64
	ProducerID int64
	Commit     bool
}

// markerRow is the projection of Row a marker scan reads: the other
// columns (keys, values, headers) are not decoded.
type markerRow struct {
	Offset     int64   `parquet:"offset"`
	ProducerID int64   `parquet:"producer_id"`
	Control    bool    `parquet:"is_control"`
	Type       *string `parquet:"control_type,optional"`
}

// Markers are a partition's transaction markers by producer id, each list
// in offset order. They decide the transactions a file left "open" (its
// marker came after the file ended), as the SQL views do.
type Markers map[int64][]Marker

// Outcome is the state of the transaction of producer pid that a record at
// offset belongs to: TxnCommitted or TxnAborted after the first marker of
// that producer past offset, TxnOpen when the folder holds none yet.
func (ms Markers) Outcome(pid, offset int64) string {
	l := ms[pid]
	i := sort.Search(len(l), func(i int) bool { return l[i].Offset > offset })
	switch {
	case i == len(l):
		return TxnOpen
	case l[i].Commit:
		return TxnCommitted
	}
	return TxnAborted
}

// ReadMarkers reads the transaction markers of the files of m that hold
// any (the manifest counts them), from the first file that ends at or
// after offset from.
func (d *Dir) ReadMarkers(ctx context.Context, m *Manifest, from int64) (Markers, error) {
	out := Markers{}
	for _, fe := range m.Files {
		if fe.LastOffset < from || fe.ControlRecords == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		path := d.FilePath(m.TP(), fe.Name)
		f, err := d.store().Open(ctx, RelFilePath(m.TP(), fe.Name))
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", path, err)
		}
		pf, err := OpenParquet(f, fe.Bytes)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("read markers of %s: %w", path, err)
		}
		r := parquet.NewGenericReader[markerRow](pf)
		rows := make([]markerRow, 8192)
		for {
			n, err := r.Read(rows)
			for _, row := range rows[:n] {
				if row.Control && row.Type != nil {
					out[row.ProducerID] = append(out[row.ProducerID], Marker{Offset: row.Offset, ProducerID: row.ProducerID, Commit: *row.Type == ControlCommit})
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				r.Close()
				f.Close()
				return nil, fmt.Errorf("read markers of %s: %w", path, err)
			}
		}
		r.Close()
		f.Close()
	}
	return out, nil
}

// Committed reports whether row is a committed data record: not a marker,
// and either outside a transaction or in one that committed. A row left
// "open" in its file is decided by ms; the second result is false when ms
// cannot decide it either (its transaction was open at the last snapshot).
func Committed(row *Row, ms Markers) (committed, decided bool) {
	if row.Control {
		return false, true
	}
	if row.TxnState == nil {
		return true, true
	}
	state := *row.TxnState
	if state == TxnOpen {
		state = ms.Outcome(row.ProducerID, row.Offset)
	}
	switch state {
	case TxnCommitted:
		return true, true
	case TxnAborted:
		return false, true
	}
	return false, false
}

// epochRow is the projection of Row FirstOffsetPastEpoch reads.
type epochRow struct {
	Offset      int64 `parquet:"offset"`
	LeaderEpoch int32 `parquet:"leader_epoch"`
}

// FirstOffsetPastEpoch is the offset of the first record of m whose leader
// epoch is above epoch, or m.NextOffset when none is: where the folder's
// history of that epoch ends. Only files whose last record is of a later
// epoch (or do not say) are read, from the first such file on; epochs
// never go down along a partition's offsets.
func (d *Dir) FirstOffsetPastEpoch(ctx context.Context, m *Manifest, epoch int32) (int64, error) {
	for _, fe := range m.Files {
		if fe.LastLeaderEpoch != nil && *fe.LastLeaderEpoch <= epoch {
			continue
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		path := d.FilePath(m.TP(), fe.Name)
		f, err := d.store().Open(ctx, RelFilePath(m.TP(), fe.Name))
		if err != nil {
			return 0, fmt.Errorf("open %s: %w", path, err)
		}
		at, found, err := firstPastEpoch(f, fe, epoch)
		f.Close()
		if err != nil {
			return 0, fmt.Errorf("read the leader epochs of %s: %w", path, err)
		}
		if found {
			return at, nil
		}
	}
	return m.NextOffset, nil
}

func firstPastEpoch(f io.ReaderAt, fe FileEntry, epoch int32) (int64, bool, error) {
	pf, err := OpenParquet(f, fe.Bytes)
	if err != nil {
		return 0, false, err
	}
	r := parquet.NewGenericReader[epochRow](pf)
	defer r.Close()
	rows := make([]epochRow, 8192)
	for {
		n, err := r.Read(rows)
		for _, row := range rows[:n] {
			if row.LeaderEpoch > epoch {
				return row.Offset, true, nil
			}
		}
		if errors.Is(err, io.EOF) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
	}
}
