package catalog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"
)

// MaxFooterBytes bounds the footer of a data file that is decoded: a data
// file of topicsnap's has a footer of kilobytes (a merged 128 MiB file's,
// some hundreds), while the length word at a file's end is the file's own
// (up to 4 GiB in a handed-over folder), and decoding reads the footer
// whole. Every footer read from a folder (OpenParquet: verify, compact,
// restore's scan, markers; the engine's checks of a topic's files) is held
// to it before a byte of it is read. A var for tests.
var MaxFooterBytes int64 = 16 << 20

// NotParquetError is a data file whose ends are not Parquet's ("PAR1" at
// both ends, a footer length that fits in the file and in MaxFooterBytes):
// rewritten, a disk's block of zeroes, or a footer length someone chose.
// It is the file's content, not a read that failed.
type NotParquetError struct {
	Why string
	Err error // what the Parquet reader said, if it was asked
}

func (e *NotParquetError) Error() string {
	return "not Parquet: " + e.Why + " (rewritten or corrupt)"
}

// Unwrap makes a NotParquetError an ErrBadDataFile (the folder's fault,
// exit 9), and what the reader said.
func (e *NotParquetError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrBadDataFile}
	}
	return []error{ErrBadDataFile, e.Err}
}

// CheckEnds says whether size bytes of a data file at r begin and end as
// Parquet does: "PAR1" at both ends and a footer length that fits in the
// file, and with bound, at most MaxFooterBytes (the footer is to be
// decoded). It reads the first 4 and the last 8 bytes. A content problem
// is a *NotParquetError; a read that failed comes back as it is.
func CheckEnds(r io.ReaderAt, size int64, bound bool) error {
	_, err := checkEnds(r, size, bound)
	return err
}

// checkEnds is CheckEnds that also says the footer's length.
func checkEnds(r io.ReaderAt, size int64, bound bool) (int64, error) {
	bad := func(format string, a ...any) (int64, error) {
		return 0, &NotParquetError{Why: fmt.Sprintf(format, a...)}
	}
	if size < 12 {
		return bad("%d bytes, too few for a Parquet file", size)
	}
	var head, tail [8]byte
	if _, err := r.ReadAt(head[:4], 0); err != nil && !(errors.Is(err, io.EOF)) {
		return 0, err
	}
	if _, err := r.ReadAt(tail[:], size-8); err != nil && !(errors.Is(err, io.EOF)) {
		return 0, err
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	switch {
	case string(tail[4:]) != "PAR1":
		return bad("no PAR1 magic at its end")
	case string(head[:4]) != "PAR1":
		return bad("no PAR1 magic at its start")
	case n == 0 || n > size-12:
		return bad("a footer of %d bytes in a file of %d", n, size)
	case bound && n > MaxFooterBytes:
		// Decoding reads the footer whole: a length someone chose is not
		// read into memory.
		return bad("a footer of %d bytes, past the %d a data file's may take", n, MaxFooterBytes)
	}
	return n, nil
}

// OpenParquet is parquet.OpenFile of size bytes at r once CheckEnds (with
// the bound) passed: the footer a file's last bytes claim is never read
// past MaxFooterBytes, nor past the file. Every data file of a folder is
// opened through it. An error of the file's content (its ends, a footer
// that does not decode) is a *NotParquetError (ErrBadDataFile).
func OpenParquet(r io.ReaderAt, size int64, options ...parquet.FileOption) (*parquet.File, error) {
	if err := CheckEnds(r, size, true); err != nil {
		return nil, err
	}
	ra := &readErrAt{r: r}
	pf, err := parquet.OpenFile(ra, size, options...)
	ra.done.Store(true)
	if rerr := ra.err.Load(); err != nil && rerr != nil {
		// A read that failed (a bucket out of reach, ctx ended) is not the
		// file's damage.
		return nil, *rerr
	}
	if err != nil {
		return nil, &NotParquetError{Why: "its footer cannot be read: " + err.Error(), Err: err}
	}
	return pf, nil
}

// readErrAt is r that keeps the first error of a read (other than io.EOF)
// until done: OpenParquet tells a read that failed from a footer that does
// not decode.
type readErrAt struct {
	r    io.ReaderAt
	done atomic.Bool
	err  atomic.Pointer[error]
}

func (ra *readErrAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := ra.r.ReadAt(p, off)
	if err != nil && !errors.Is(err, io.EOF) && !ra.done.Load() {
		ra.err.CompareAndSwap(nil, &err)
	}
	return n, err
}
