package segments

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// ErrKcatFormat is a --kcat-format that cannot be read back without
// guessing.
var ErrKcatFormat = exit.New(exit.Error, "a kcat -f format that cannot be read back",
	"give the -f FORMAT the file was written with; it needs %o and %p, a delimiter after each number, and a length (%K before %k, %S or %R before %s) for all but one of %k, %s and %h")

// KcatFormat is a kcat -f FORMAT made into a reader of what it wrote.
//
// kcat writes each message as the format says, with no escaping: %o, %p,
// %T, %K and %S as decimal numbers (%K and %S -1 for null), %R the value's
// length as 4 bytes big endian, %t the topic, %k, %s the key's and value's
// bytes (nothing for null and for empty), %h the headers as NAME=VALUE
// joined by commas (NULL for a null value). A key or value is read
// exactly when its length comes before it (%K before %k, %S or %R before
// %s); else it runs up to the text that follows it in the format, so one
// such field at most can be read, and a value holding that text is cut
// there (the rest does not match and is counted). A length after its
// field checks the cut: the next delimiter is tried until it agrees.
type KcatFormat struct {
	src    string
	toks   []fmtTok
	has    map[byte]bool
	choice int // index of the field read up to its delimiter, -1 when none
}

type fmtTok struct {
	field byte // 0: literal text; else the token's letter
	lit   []byte
}

// fmtRec is what one message's text held.
type fmtRec struct {
	topic                      string
	partition, offset, ts      int64
	keyLen, valLen, valLenBin  int64
	key, value, headers        []byte
	haveKeyLen, haveValLen     bool
	haveKey, haveVal, haveHdrs bool
}

func (t fmtTok) numeric() bool { return strings.IndexByte("opTKS", t.field) >= 0 }
func (t fmtTok) free() bool    { return t.field == 'k' || t.field == 's' || t.field == 'h' }

func isTopicByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// ParseKcatFormat reads a kcat -f FORMAT as kcat does (%t %p %o %k %K %s
// %S %R %T %h %%, and \n \r \t \xHH \NNN escapes) and refuses one whose
// output cannot be read back without guessing.
func ParseKcatFormat(format string) (*KcatFormat, error) {
	f := &KcatFormat{src: format, has: map[byte]bool{}, choice: -1}
	var lit []byte
	flush := func() {
		if len(lit) > 0 {
			f.toks = append(f.toks, fmtTok{lit: lit})
			lit = nil
		}
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		switch {
		case c == '\\' && i+1 < len(format):
			i++
			switch e := format[i]; {
			case e == 'n':
				lit = append(lit, '\n')
			case e == 'r':
				lit = append(lit, '\r')
			case e == 't':
				lit = append(lit, '\t')
			case e == 'x' || e >= '0' && e <= '9':
				// kcat: strtoul(base 16 after x, else base 0), the low byte.
				j, base := i, 0
				if e == 'x' {
					j, base = i+1, 16
				}
				k := j
				for k < len(format) && strings.IndexByte("0123456789abcdefABCDEFxX", format[k]) >= 0 {
					k++
				}
				n, used := parseCUint(format[j:k], base)
				if used == 0 {
					lit = append(lit, e)
					continue
				}
				lit = append(lit, byte(n))
				i = j + used - 1
			default:
				lit = append(lit, e)
			}
		case c == '%':
			if i+1 == len(format) {
				return nil, exit.Errorf(ErrKcatFormat, "--kcat-format %q ends with a lone %%", format)
			}
			i++
			t := format[i]
			if t == '%' {
				lit = append(lit, '%')
				continue
			}
			if strings.IndexByte("tpokKsSRTh", t) < 0 {
				return nil, exit.Errorf(ErrKcatFormat, "--kcat-format %q: %%%c is not a kcat format token (%%t %%p %%o %%k %%K %%s %%S %%R %%T %%h)", format, t)
			}
			if f.has[t] {
				return nil, exit.Errorf(ErrKcatFormat, "--kcat-format %q holds %%%c twice; give it once", format, t)
			}
			flush()
			f.has[t] = true
			f.toks = append(f.toks, fmtTok{field: t})
		default:
			lit = append(lit, c)
		}
	}
	flush()
	if !f.has['o'] || !f.has['p'] {
		return nil, exit.Errorf(ErrKcatFormat, "--kcat-format %q lacks %%o or %%p: a message is placed by its partition and offset; write the file again with both (kcat -C -f '%%p %%o ...')", format)
	}
	var choices []string
	for i, t := range f.toks {
		var next *fmtTok
		if i+1 < len(f.toks) {
			next = &f.toks[i+1]
		}
		switch {
		case t.numeric() && (next == nil || next.field != 0 || next.lit[0] >= '0' && next.lit[0] <= '9'):
			return nil, exit.Errorf(ErrKcatFormat, "--kcat-format %q: %%%c is not followed by text that ends a number (a space, a colon, \\n)", format, t.field)
		case t.field == 't' && (next == nil || next.field != 0 || isTopicByte(next.lit[0])):
			return nil, exit.Errorf(ErrKcatFormat, "--kcat-format %q: %%t is not followed by text that ends a topic name (a space, a colon, \\n)", format)
		case t.free() && !f.lengthBefore(i):
			choices = append(choices, "%"+string(t.field))
			if next == nil || next.field != 0 {
				return nil, exit.Errorf(ErrKcatFormat, "--kcat-format %q: %%%c has no length before it and no text after it to end it; add a delimiter after it, or its length before it (%s)", format, t.field, lengthHint(t.field))
			}
			f.choice = i
		}
	}
	if len(choices) > 1 {
		return nil, exit.Errorf(ErrKcatFormat, "--kcat-format %q: %s have no length before them, so where one ends and the next begins is a guess; write the file again with %s", format, strings.Join(choices, " and "), lengthHint(f.toks[f.choice].field))
	}
	return f, nil
}

func lengthHint(field byte) string {
	switch field {
	case 'k':
		return "%K before %k"
	case 's':
		return "%S before %s"
	}
	return "%h last, after the lengths of %k and %s: %K %k and %S %s"
}

// parseCUint is strtoul: base 0 reads 0x hex, 0 octal, else decimal. It
// returns the value and the bytes used.
func parseCUint(s string, base int) (uint64, int) {
	start := 0
	if base == 0 {
		switch {
		case len(s) > 2 && (s[1] == 'x' || s[1] == 'X') && s[0] == '0':
			base, start = 16, 2
		case len(s) > 1 && s[0] == '0':
			base, start = 8, 1
		default:
			base = 10
		}
	}
	var n uint64
	i := start
	for ; i < len(s); i++ {
		d, err := strconv.ParseUint(s[i:i+1], base, 8)
		if err != nil {
			break
		}
		n = n*uint64(base) + d
	}
	if i == start {
		if start > 0 {
			return 0, 1 // "0" then a non-digit: the 0
		}
		return 0, 0
	}
	return n, i
}

// lengthBefore says whether the free field at i has its length earlier in
// the format.
func (f *KcatFormat) lengthBefore(i int) bool {
	for _, t := range f.toks[:i] {
		switch {
		case f.toks[i].field == 'k' && t.field == 'K', f.toks[i].field == 's' && (t.field == 'S' || t.field == 'R'):
			return true
		}
	}
	return false
}

// lengthAfter says whether the free field at i has its length later in
// the format (which then checks where it was cut).
func (f *KcatFormat) lengthAfter(i int) bool {
	for _, t := range f.toks[i+1:] {
		switch {
		case f.toks[i].field == 'k' && t.field == 'K', f.toks[i].field == 's' && (t.field == 'S' || t.field == 'R'):
			return true
		}
	}
	return false
}

// Lacks is what the format's lines do not carry: said in each partition
// snapshot's note.
func (f *KcatFormat) Lacks() string {
	var out []string
	out = append(out, fmt.Sprintf("kcat -f '%s' carries no transaction markers, producer ids or epochs, leader epochs, nor whether a record was transactional (columns -1 and false: not read), nor the timestamp's type (unknown)", f.src))
	if !f.has['T'] {
		out = append(out, "no timestamp (%T not in the format: -1)")
	}
	for _, c := range []struct {
		field, length byte
		name, hint    string
	}{{'k', 'K', "key", "%K"}, {'s', 'S', "value", "%S"}} {
		switch {
		case !f.has[c.field]:
			out = append(out, fmt.Sprintf("no %s (%%%c not in the format: null)", c.name, c.field))
		case !f.has[c.length] && !(c.field == 's' && f.has['R']):
			out = append(out, fmt.Sprintf("no %s length (%s), so an empty %s and a null one look the same: both read as null", c.name, c.hint, c.name))
		}
	}
	if !f.has['h'] {
		out = append(out, "no headers (%h not in the format)")
	} else {
		out = append(out, "headers as kcat prints them (NAME=VALUE,...): a value NULL is read as null, and a name or value holding a comma or = is split there")
	}
	if c := f.choice; c >= 0 && !f.lengthAfter(c) {
		out = append(out, fmt.Sprintf("%%%c has no length: where the rest of the line reads either way, a value holding %q is cut there (the rest of it is a line that does not match, counted)", f.toks[c].field, f.toks[c+1].lit))
	}
	out = append(out, "kcat reads read_committed by default, so aborted records and markers are offsets not in the file")
	return strings.Join(out, "; ")
}

type matchStatus int

const (
	matchOK matchStatus = iota
	matchFail
	matchMore // the bytes end before the message does
)

// match reads one message from the start of b; eof says no bytes follow b.
func (f *KcatFormat) match(b []byte, eof bool) (fmtRec, int, matchStatus) {
	var rec fmtRec
	rec.ts = -1
	n, st := f.matchFrom(0, b, 0, eof, &rec)
	return rec, n, st
}

func (f *KcatFormat) matchFrom(i int, b []byte, pos int, eof bool, rec *fmtRec) (int, matchStatus) {
	more := func() (int, matchStatus) {
		if eof {
			return 0, matchFail
		}
		return 0, matchMore
	}
	for ; i < len(f.toks); i++ {
		t := f.toks[i]
		rest := b[pos:]
		switch {
		case t.field == 0:
			if len(rest) < len(t.lit) {
				if bytes.HasPrefix(t.lit, rest) {
					return more()
				}
				return 0, matchFail
			}
			if !bytes.HasPrefix(rest, t.lit) {
				return 0, matchFail
			}
			pos += len(t.lit)
		case t.numeric():
			j := 0
			if j < len(rest) && rest[j] == '-' {
				j++
			}
			for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' && j < 21 {
				j++
			}
			if j == len(rest) {
				return more()
			}
			v, err := strconv.ParseInt(string(rest[:j]), 10, 64)
			if err != nil {
				return 0, matchFail
			}
			switch t.field {
			case 'o':
				rec.offset = v
			case 'p':
				rec.partition = v
			case 'T':
				rec.ts = v
			case 'K':
				rec.keyLen, rec.haveKeyLen = v, true
			case 'S':
				if rec.haveValLen && rec.valLen != v {
					return 0, matchFail // %R said otherwise
				}
				rec.valLen, rec.haveValLen = v, true
			}
			pos += j
		case t.field == 'R':
			if len(rest) < 4 {
				return more()
			}
			v := int64(int32(binary.BigEndian.Uint32(rest)))
			if rec.haveValLen && rec.valLen != v {
				return 0, matchFail
			}
			rec.valLen, rec.haveValLen = v, true
			pos += 4
		case t.field == 't':
			j := 0
			for j < len(rest) && j <= 249 && isTopicByte(rest[j]) {
				j++
			}
			if j == len(rest) {
				return more()
			}
			if j == 0 {
				return 0, matchFail
			}
			rec.topic = string(rest[:j])
			pos += j
		case i != f.choice:
			// A key or value whose length came before it.
			l := rec.keyLen
			if t.field == 's' {
				l = rec.valLen
			}
			l = max(l, 0)
			if l > MaxKcatLine {
				return 0, matchFail
			}
			if int64(len(rest)) < l {
				return more()
			}
			rec.set(t.field, rest[:l])
			pos += int(l)
		default:
			// The one field read up to the text after it: each place that
			// text occurs is tried until the rest of the message reads.
			delim := f.toks[i+1].lit
			from := 0
			for {
				k := bytes.Index(rest[from:], delim)
				if k < 0 {
					return more()
				}
				rec.set(t.field, rest[:from+k])
				save := *rec
				n, st := f.matchFrom(i+1, b, pos+from+k, eof, rec)
				if st != matchFail {
					return n, st // read, or more bytes decide this first place
				}
				*rec = save
				from += k + 1
			}
		}
	}
	return pos, rec.check()
}

func (r *fmtRec) set(field byte, v []byte) {
	switch field {
	case 'k':
		r.key, r.haveKey = v, true
	case 's':
		r.value, r.haveVal = v, true
	case 'h':
		r.headers, r.haveHdrs = v, true
	}
}

// check holds the message to its lengths (a length after its field
// checks where it was cut) and to what kcat can print.
func (r *fmtRec) check() matchStatus {
	if r.partition < 0 || r.partition > 1<<31-1 || r.offset < 0 || r.offset > MaxOffset {
		return matchFail
	}
	if r.haveKey && r.haveKeyLen && (r.keyLen < -1 || int64(len(r.key)) != max(r.keyLen, 0)) {
		return matchFail
	}
	if r.haveVal && r.haveValLen && (r.valLen < -1 || int64(len(r.value)) != max(r.valLen, 0)) {
		return matchFail
	}
	if r.haveHdrs {
		if _, err := parseKcatHeaders(r.headers); err != nil {
			return matchFail
		}
	}
	return matchOK
}

// parseKcatHeaders reads %h: NAME=VALUE joined by commas, NULL for null.
func parseKcatHeaders(b []byte) ([]catalog.Header, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var out []catalog.Header
	for _, kv := range bytes.Split(b, []byte(",")) {
		k, v, ok := bytes.Cut(kv, []byte("="))
		if !ok {
			return nil, fmt.Errorf("header %q has no =", kv)
		}
		h := catalog.Header{Key: string(k), Value: bytes.Clone(v)}
		if string(v) == "NULL" {
			h.Value = nil
		}
		out = append(out, h)
	}
	return out, nil
}

// row makes the message a row: what the format lacks is -1, false, null.
func (r *fmtRec) row() catalog.Row {
	row := catalog.Row{Partition: int32(r.partition), Offset: r.offset, Timestamp: r.ts, TimestampType: catalog.TimestampUnknown,
		LeaderEpoch: -1, ProducerID: -1, ProducerEpoch: -1}
	if r.haveKey && len(r.key) > 0 || r.haveKeyLen && r.keyLen == 0 {
		row.Key = bytes.Clone(r.key)
		if row.Key == nil {
			row.Key = []byte{}
		}
	}
	if r.haveVal && len(r.value) > 0 || r.haveValLen && r.valLen == 0 {
		row.Value = bytes.Clone(r.value)
		if row.Value == nil {
			row.Value = []byte{}
		}
	}
	row.Headers, _ = parseKcatHeaders(r.headers)
	return row
}

// checkFirst reads the file's first message: a file the format does not
// fit is refused before anything is written.
func (f *KcatFormat) checkFirst(br *bufio.Reader, file string) error {
	b, err := br.Peek(1 << 20)
	if len(b) == 0 {
		return exit.Errorf(ErrBadInput, "%s is empty", file)
	}
	if _, _, st := f.match(b, err != nil); st == matchFail {
		line, _, _ := bytes.Cut(b, []byte("\n"))
		return exit.Errorf(ErrBadInput, "%s: its first line %.80q does not match --kcat-format %q; give the -f FORMAT the file was written with (or no --kcat-format for kcat -J output)", file, line, f.src)
	}
	return nil
}

// read reads every message of the file into w. A line that does not match
// is counted and the first ones named, and the reading goes on after it.
func (f *KcatFormat) read(ctx context.Context, r io.Reader, w *kcatWriter) error {
	const chunk = 1 << 20
	var (
		buf     []byte
		pos     int
		fileOff int64 // of buf[0]
		eof     bool
		lineNo  = 1
	)
	fill := func() error {
		if pos > 0 {
			fileOff += int64(pos)
			buf = append(buf[:0], buf[pos:]...)
			pos = 0
		}
		if len(buf)+chunk > cap(buf) {
			nb := make([]byte, len(buf), len(buf)+chunk)
			copy(nb, buf)
			buf = nb
		}
		n, err := io.ReadFull(r, buf[len(buf):len(buf)+chunk])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			eof = true
			return nil
		}
		return err
	}
	for n := 0; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if pos == len(buf) {
			if eof {
				return nil
			}
			if err := fill(); err != nil {
				return exit.Errorf(ErrBadInput, "%s: %v", w.opts.File, err)
			}
			continue
		}
		rec, used, st := f.match(buf[pos:], eof)
		if st == matchMore && len(buf)-pos < MaxKcatLine {
			if err := fill(); err != nil {
				return exit.Errorf(ErrBadInput, "%s: %v", w.opts.File, err)
			}
			continue
		}
		if st != matchOK {
			// Up to the end of the line, which may be past what is read.
			k := bytes.IndexByte(buf[pos:], '\n')
			if k < 0 && !eof && len(buf)-pos < MaxKcatLine {
				if err := fill(); err != nil {
					return exit.Errorf(ErrBadInput, "%s: %v", w.opts.File, err)
				}
				continue
			}
			end := len(buf)
			if k >= 0 {
				end = pos + k + 1
			}
			if line := bytes.TrimSpace(buf[pos:end]); len(line) > 0 {
				w.unmatched++
				if w.unmatched <= 5 {
					w.o.Warn(fmt.Sprintf("%s line %d (byte %d): %.80q does not match --kcat-format %q; not imported", w.opts.File, lineNo, fileOff+int64(pos), line, f.src))
				}
			}
			lineNo += bytes.Count(buf[pos:end], []byte("\n"))
			pos = end
			continue
		}
		start := fileOff + int64(pos)
		lineNo += bytes.Count(buf[pos:pos+used], []byte("\n"))
		pos += used
		if f.has['t'] && rec.topic != w.opts.Topic {
			w.otherTopics++
			continue
		}
		if err := w.add(ctx, rec.row(), start, fileOff+int64(pos)); err != nil {
			return err
		}
	}
}
