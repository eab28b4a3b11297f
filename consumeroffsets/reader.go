package consumeroffsets

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// reader reads Kafka's wire encoding, flexible (compact) or not, with
// every length and count checked against the bytes left before anything
// is allocated. The first failure sticks in err; later reads return zero
// values.
type reader struct {
	src []byte
	err error
}

var errShort = errors.New("cut short")

func (b *reader) fail(err error) {
	if b.err == nil {
		b.err = err
	}
	b.src = nil
}

func (b *reader) span(n int) []byte {
	if b.err != nil {
		return nil
	}
	if n < 0 || n > len(b.src) {
		b.fail(fmt.Errorf("%w: %d bytes wanted, %d left", errShort, n, len(b.src)))
		return nil
	}
	s := b.src[:n:n]
	b.src = b.src[n:]
	return s
}

func (b *reader) int8() int8 {
	s := b.span(1)
	if s == nil {
		return 0
	}
	return int8(s[0])
}

func (b *reader) int16() int16 {
	s := b.span(2)
	if s == nil {
		return 0
	}
	return int16(binary.BigEndian.Uint16(s))
}

func (b *reader) int32() int32 {
	s := b.span(4)
	if s == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(s))
}

func (b *reader) int64() int64 {
	s := b.span(8)
	if s == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(s))
}

func (b *reader) uuid() string {
	s := b.span(16)
	if s == nil {
		return ""
	}
	return uuidString([16]byte(s))
}

// uvarint reads an unsigned varint of at most 5 bytes (Kafka's uint32).
func (b *reader) uvarint() uint32 {
	if b.err != nil {
		return 0
	}
	v, n := binary.Uvarint(b.src)
	if n <= 0 || n > 5 || v > 1<<32-1 {
		b.fail(fmt.Errorf("%w: bad varint", errShort))
		return 0
	}
	b.src = b.src[n:]
	return uint32(v)
}

// str reads a non-flexible string (int16 length); a null is an error.
func (b *reader) str() string {
	n := b.int16()
	if n < 0 {
		b.fail(errors.New("null string"))
		return ""
	}
	return string(b.span(int(n)))
}

// nstr reads a non-flexible nullable string (int16 length, -1 null).
func (b *reader) nstr() *string {
	n := b.int16()
	if b.err != nil || n < 0 {
		return nil
	}
	s := string(b.span(int(n)))
	if b.err != nil {
		return nil
	}
	return &s
}

// cstr reads a compact string; a null is an error.
func (b *reader) cstr() string {
	s := b.cnstr()
	if s == nil {
		if b.err == nil {
			b.fail(errors.New("null string where a string is required"))
		}
		return ""
	}
	return *s
}

// cnstr reads a compact nullable string.
func (b *reader) cnstr() *string {
	n := b.uvarint()
	if b.err != nil || n == 0 {
		return nil
	}
	s := string(b.span(int(n - 1)))
	if b.err != nil {
		return nil
	}
	return &s
}

// carray reads a compact array's length, each element at least min bytes:
// a count the bytes left cannot hold is an error, so nothing is allocated
// for it. A null array is an empty one.
func (b *reader) carray(min int) int {
	n := b.uvarint()
	if b.err != nil || n == 0 {
		return 0
	}
	l := int(n - 1)
	if l > len(b.src)/min {
		b.fail(fmt.Errorf("%w: %d elements in %d bytes", errShort, l, len(b.src)))
		return 0
	}
	return l
}

// topicPartitions reads a compact array of {uuid TopicId, []int32
// Partitions, tagged fields}.
func (b *reader) topicPartitions() []TopicPartitions {
	n := b.carray(16 + 1 + 1)
	if n > MaxTopics {
		b.fail(fmt.Errorf("%w: %d topics, past the %d decoded", ErrTooLarge, n, MaxTopics))
		return nil
	}
	out := make([]TopicPartitions, 0, n)
	for range n {
		t := TopicPartitions{TopicID: b.uuid()}
		k := b.carray(4)
		t.Partitions = make([]int32, 0, k)
		for range k {
			t.Partitions = append(t.Partitions, b.int32())
		}
		b.tags(nil)
		if b.err != nil {
			return out
		}
		out = append(out, t)
	}
	return out
}

// tags reads a tagged-fields section, calling f (when not nil) with each
// field's tag and a reader over its bytes; fields f does not read are
// skipped, as Kafka skips the tags it does not know.
func (b *reader) tags(f func(tag uint32, t *reader)) {
	n := b.uvarint()
	if b.err == nil && int(n) > len(b.src)/2 {
		b.fail(fmt.Errorf("%w: %d tagged fields in %d bytes", errShort, n, len(b.src)))
	}
	for i := uint32(0); i < n && b.err == nil; i++ {
		tag := b.uvarint()
		size := b.uvarint()
		body := b.span(int(size))
		if b.err != nil || f == nil {
			continue
		}
		t := reader{src: body}
		f(tag, &t)
		if t.err != nil {
			b.fail(fmt.Errorf("tagged field %d: %w", tag, t.err))
		}
	}
}

// done is the reader's error, and an error for bytes left over.
func (b *reader) done() error {
	if b.err != nil {
		return b.err
	}
	if len(b.src) > 0 {
		return fmt.Errorf("%d bytes left over", len(b.src))
	}
	return nil
}
