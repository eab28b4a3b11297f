package catalog

import (
	"context"
	"errors"
	"fmt"
	"github.com/topicsnap/topicsnap/internal/exit"
	"io"
	"os"
)

// Errors of a data file a reader refuses, told apart with errors.Is.
var (
	// ErrBadRows is a data file whose rows contradict its manifest entry.
	// Restore refuses such a file, and catalog verify names it.
	ErrBadRows = exit.New(exit.BadFolder, "data file contradicts its manifest",
		"run topicsnap catalog verify --dir DIR (lists every damaged file); put the file back from a backup, or remove its partition folder and dump the partition again while Kafka still has its offsets, then run the same restore again (it resumes after the committed progress)")
	// ErrBadDataFile is a data file its manifest lists that is missing, or
	// something other than a regular file (a FIFO, a device, a link out of
	// the folder) in its place.
	ErrBadDataFile = exit.New(exit.BadFolder, "unreadable data file",
		"put the file back from a backup (a regular file, not a FIFO, a device or a link out of the folder), or remove its partition folder and dump the partition again while Kafka still has its offsets; topicsnap catalog verify --dir DIR (lists every damaged file)")
)

// RowError is a data file whose rows contradict its manifest entry: a row
// whose partition column is not its manifest's partition, an offset
// outside the entry's range, offsets that do not strictly increase, or a
// row count other than the entry's. errors.Is(err, ErrBadRows) holds.
type RowError struct {
	Path   string // the file, relative to the snapshot folder (RelFilePath)
	Row    int64  // the row's position in the file, from 0; -1 for the file as a whole
	Offset int64  // the row's offset column, when Row >= 0
	Detail string // what is wrong, in plain words
}

// What is the error without the file's path: which row, and what is wrong.
func (e *RowError) What() string {
	if e.Row < 0 {
		return e.Detail
	}
	return fmt.Sprintf("row %d (offset %d): %s", e.Row, e.Offset, e.Detail)
}

func (e *RowError) Error() string {
	return fmt.Sprintf("%s: %v: %s", e.Path, ErrBadRows, e.What())
}

func (e *RowError) Unwrap() error { return ErrBadRows }

// RowCheck holds a data file's rows, read in file order, to its manifest
// entry at O(1) a row: every row's partition column is the manifest's
// partition (the folder's), every offset lies in the entry's range and
// is greater than the one before, the first is the entry's first offset,
// and, once the file is read to its end, the last is its last offset and
// the rows are as many as it counts. Restore calls it in its reading loop,
// catalog verify over the two columns it needs.
type RowCheck struct {
	path      string
	partition int32
	first     int64
	last      int64
	records   int64
	prev      int64 // the offset of the last row checked
	n         int64 // rows checked
	// The entry's bounds a restore trusts to skip reading a file for the
	// target's limits (restore's fileFits): its largest record
	// (MaxRecordBytes, 0: not recorded, nor then its times) and its
	// oldest and newest timestamps.
	maxBytes, minTS, maxTS int64
}

// NewRowCheck is the check of file fe of the manifest of tp.
func NewRowCheck(tp TopicPartition, fe FileEntry) *RowCheck {
	return &RowCheck{path: RelFilePath(tp, fe.Name), partition: tp.Partition,
		first: fe.FirstOffset, last: fe.LastOffset, records: fe.Records,
		maxBytes: fe.MaxRecordBytes, minTS: fe.MinTimestamp, maxTS: fe.MaxTimestamp}
}

// Record checks the row Row passed last against the bounds its manifest
// entry states of every record of the file (when it states them: an entry
// with MaxRecordBytes): its size (RecordBytes) at most MaxRecordBytes,
// its timestamp within MinTimestamp-MaxTimestamp. Restore relies on them
// to produce a file unread for the target's limits, so a record past them
// would be refused by the broker mid-restore, or (a time the producer
// cannot write) restored with another timestamp.
func (c *RowCheck) Record(timestamp int64, key, value []byte, headers []Header) error {
	if c.maxBytes <= 0 || c.n == 0 {
		return nil
	}
	var detail string
	switch n := RecordBytes(key, value, headers); {
	case n > c.maxBytes:
		detail = fmt.Sprintf("a record of %d bytes (key, value and headers), more than the largest its manifest states (max_record_bytes %d; catalog verify, which reads only the partition and offset columns, does not see this)", n, c.maxBytes)
	case timestamp < c.minTS || timestamp > c.maxTS:
		detail = fmt.Sprintf("timestamp %d outside the file's %d-%d (ms) in its manifest (catalog verify, which reads only the partition and offset columns, does not see this)", timestamp, c.minTS, c.maxTS)
	}
	if detail != "" {
		return &RowError{Path: c.path, Row: c.n - 1, Offset: c.prev, Detail: detail}
	}
	return nil
}

// Row checks the file's next row: its partition and offset columns.
func (c *RowCheck) Row(partition int32, offset int64) error {
	var detail string
	switch {
	case partition != c.partition:
		detail = fmt.Sprintf("partition column %d in the folder of partition %d", partition, c.partition)
	case offset < c.first || offset > c.last:
		detail = fmt.Sprintf("offset outside the file's range %d-%d in its manifest", c.first, c.last)
	case c.n > 0 && offset == c.prev:
		detail = fmt.Sprintf("offset %d again (the row before has it too)", offset)
	case c.n > 0 && offset < c.prev:
		detail = fmt.Sprintf("offsets out of order: %d after %d", offset, c.prev)
	case c.n == 0 && offset != c.first:
		detail = fmt.Sprintf("the first row's offset is not the file's first offset %d in its manifest", c.first)
	}
	if detail != "" {
		return &RowError{Path: c.path, Row: c.n, Offset: offset, Detail: detail}
	}
	c.prev = offset
	c.n++
	return nil
}

// AtEnd reports whether the last row checked had the file's last offset:
// no row can follow it, so End applies though the file was not read on.
func (c *RowCheck) AtEnd() bool { return c.n > 0 && c.prev == c.last }

// End checks, after every row of the file went through Row, that the
// last offset and the row count are the manifest entry's.
func (c *RowCheck) End() error {
	switch {
	case c.n != c.records:
		return &RowError{Path: c.path, Row: -1, Detail: fmt.Sprintf("%d rows, its manifest says %d", c.n, c.records)}
	case c.n > 0 && c.prev != c.last:
		return &RowError{Path: c.path, Row: -1, Detail: fmt.Sprintf("last offset %d, its manifest says %d", c.prev, c.last)}
	}
	return nil
}

// rowCheckColumns are the columns a RowCheck reads.
var rowCheckColumns = []string{"partition", "offset"}

// CheckRows reads the partition and offset columns of file fe of the
// manifest of tp at path and holds them to fe with a RowCheck; the error
// is a *RowError, or why the file could not be read.
func CheckRows(ctx context.Context, path string, tp TopicPartition, fe FileEntry) error {
	return checkRows(ctx, tp, fe, func(fn func([]Row) error) error {
		return ScanDataFileColumnsReused(ctx, path, 8192, rowCheckColumns, fn)
	})
}

// checkRowsAt is CheckRows over r, size bytes of Parquet named name (a
// bucket's object).
func checkRowsAt(ctx context.Context, name string, r io.ReaderAt, size int64, tp TopicPartition, fe FileEntry) error {
	want := make([]bool, len(rowLeafPaths))
	for _, c := range rowCheckColumns {
		for i, p := range rowLeafPaths {
			if p[0] == c {
				want[i] = true
			}
		}
	}
	return checkRows(ctx, tp, fe, func(fn func([]Row) error) error {
		return scanReader(ctx, name, r, size, 8192, want, true, nil, fn)
	})
}

func checkRows(ctx context.Context, tp TopicPartition, fe FileEntry, scan func(func([]Row) error) error) error {
	c := NewRowCheck(tp, fe)
	err := scan(func(rows []Row) error {
		for i := range rows {
			if err := c.Row(rows[i].Partition, rows[i].Offset); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.End()
}

// CheckDataFileKind says, before a reader opens it, whether data file name
// of tp is a regular file inside its partition folder: a FIFO, a device or
// a link out of the folder in its place would hang a reader or feed it
// without end. The error names the file by its relative path and wraps
// ErrBadDataFile and safefile.ErrNotRegular, or why it could not be looked
// at (os.ErrNotExist for a missing one). A bucket's objects are always
// plain.
func (d *Dir) CheckDataFileKind(ctx context.Context, tp TopicPartition, name string) error {
	_, err := d.checkData(ctx, tp, name)
	return err
}

// checkData is CheckDataFileKind that also says the file's size (-1 when
// the store does not know it without a request: a bucket).
func (d *Dir) checkData(ctx context.Context, tp TopicPartition, name string) (int64, error) {
	size, err := d.store().CheckData(ctx, RelFilePath(tp, name))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return 0, fmt.Errorf("%s: %w: missing: %w", RelFilePath(tp, name), ErrBadDataFile, err)
	case errors.Is(err, ErrTooManyFiles):
		return 0, fmt.Errorf("%s: %w", RelFilePath(tp, name), err)
	case err != nil:
		return 0, fmt.Errorf("%s: %w: %w", RelFilePath(tp, name), ErrBadDataFile, err)
	}
	return size, nil
}
