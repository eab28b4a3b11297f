package segments

import (
	"encoding/binary"
	"fmt"
)

// AbortedTxn is one entry of a segment's .txnindex: producer ProducerID's
// transaction over First..Last was aborted (its marker at Last).
type AbortedTxn struct {
	ProducerID int64
	First      int64
	Last       int64
}

const txnEntrySize = 34 // version int16, producer id, first, last, last stable offset

// MaxTxnIndexBytes bounds a .txnindex file read whole (a million aborted
// transactions).
const MaxTxnIndexBytes = 34 << 20

// ParseTxnIndex reads a .txnindex file's entries. A partial entry at the
// end (a crash mid-write) is reported in tail, the entries before it kept.
func ParseTxnIndex(b []byte) (out []AbortedTxn, tail string, err error) {
	for len(b) >= txnEntrySize {
		if v := int16(binary.BigEndian.Uint16(b[0:2])); v != 0 {
			return out, "", fmt.Errorf("entry %d has version %d (want 0): not a transaction index", len(out), v)
		}
		e := AbortedTxn{
			ProducerID: int64(binary.BigEndian.Uint64(b[2:10])),
			First:      int64(binary.BigEndian.Uint64(b[10:18])),
			Last:       int64(binary.BigEndian.Uint64(b[18:26])),
		}
		if e.First < 0 || e.Last < e.First {
			return out, "", fmt.Errorf("entry %d covers offsets %d-%d", len(out), e.First, e.Last)
		}
		out = append(out, e)
		b = b[txnEntrySize:]
	}
	if len(b) > 0 {
		tail = fmt.Sprintf("%d bytes after the last whole entry (torn)", len(b))
	}
	return out, tail, nil
}
