package segments

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/topicsnap/topicsnap/internal/exit"
	"io"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// MaxKcatHeaders bounds the headers of one kcat -J line: a line of empty
// headers, a few bytes each, would decode to twenty times its bytes (a
// 40 MB line of 5 million took 1.3 GB); past it the line does not read.
const MaxKcatHeaders = 1_000_000

// MaxKcatLine bounds one line of a kcat -J file (a record's key, value and
// headers, escaped): a longer line is refused, not read into memory.
const MaxKcatLine = 64 << 20

// KcatOptions of an import of a kcat -C -J file.
type KcatOptions struct {
	Dir   string
	S3    catalog.S3Config
	File  string // the kcat output, one JSON object a line
	Topic string // the topic its lines must name
	// Format, if set, is the -f FORMAT the file was written with (kcat -C
	// -f), read instead of -J lines: see ParseKcatFormat.
	Format    string
	FileRows  int
	FileBytes int64
	Warn      func(string)
}

// KcatLacks is what a kcat -J line does not carry, so an import from one
// cannot know it: said in each partition snapshot's note, never invented.
const KcatLacks = "kcat -J carries no transaction markers, producer ids or epochs, leader epochs, nor whether a record was transactional " +
	"(columns -1 and false: not read); kcat reads read_committed by default, so aborted records and markers are offsets not in the file"

// kcatLine is one line of kcat -C -J. Key and payload stay raw so that
// null (absent) and "" (empty) stay apart.
type kcatLine struct {
	Topic     string          `json:"topic"`
	Partition *int32          `json:"partition"`
	Offset    *int64          `json:"offset"`
	TSType    string          `json:"tstype"`
	TS        int64           `json:"ts"`
	Key       json.RawMessage `json:"key"`
	Payload   json.RawMessage `json:"payload"`
	Headers   json.RawMessage `json:"headers"` // read element by element: kcatRow
}

// rawBytes reads a JSON string as bytes; null (or absent) is nil.
func rawBytes(r json.RawMessage) ([]byte, error) {
	if len(r) == 0 || string(r) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(r, &s); err != nil {
		return nil, fmt.Errorf("not a string: %v", err)
	}
	return []byte(s), nil
}

type kcatPart struct {
	s       *sink
	lock    *catalog.Lock
	from    int64
	first   int64
	skipped int64 // lines at offsets already imported (or repeated)
	// damaged is the error of a partition whose manifest does not read:
	// its lines are passed over, the other partitions imported.
	damaged error
}

// ImportKcat reads a kcat -C -J file into opts.Dir, or with opts.Format
// the output of kcat -C -f FORMAT. Offsets the file passes over are lost
// ranges "not-in-file"; what kcat does not print is said (KcatLacks, or
// the format's), not invented. It resumes from the manifests as Import
// does: the same file twice changes nothing.
func ImportKcat(ctx context.Context, opts KcatOptions) (sum Summary, err error) {
	start := time.Now()
	o := Options{FileRows: opts.FileRows, FileBytes: opts.FileBytes, Warn: opts.Warn}
	o.defaults()
	opts.Warn = o.Warn
	if !catalog.ValidTopicName(opts.Topic) {
		return sum, exit.Errorf(ErrBadInput, "--topic %q is no topic name", opts.Topic)
	}
	var format *KcatFormat
	if opts.Format != "" {
		if format, err = ParseKcatFormat(opts.Format); err != nil {
			return sum, err
		}
	}
	// Non-blocking: a FIFO no one writes to would hold open(2) for ever,
	// deaf to Ctrl-C; it is refused below, as anything not a regular file.
	f, err := os.OpenFile(opts.File, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return sum, exit.Errorf(ErrBadInput, "%v", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return sum, exit.Errorf(ErrBadInput, "%s is not a regular file", opts.File)
	}
	// The first record is read before anything is written: a file that is
	// not kcat's output leaves --dir as it was.
	br := bufio.NewReaderSize(f, 1<<20)
	if format != nil {
		err = format.checkFirst(br, opts.File)
	} else {
		err = checkFirstLine(br, opts.File)
	}
	if err != nil {
		return sum, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return sum, exit.Errorf(ErrBadInput, "%v", err)
	}
	br.Reset(f)
	if err := catalog.CheckCreateAt(ctx, opts.Dir, opts.S3); err != nil {
		return sum, err
	}
	dir, err := catalog.CreateAt(ctx, opts.Dir, opts.S3)
	if err != nil {
		return sum, err
	}
	w := &kcatWriter{dir: dir, id: catalog.NewSnapshotID(start), opts: opts, o: o, sum: &sum, parts: map[int32]*kcatPart{}}
	defer func() {
		w.close(err)
		sum.Elapsed = time.Since(start)
	}()
	note := KcatLacks
	if format != nil {
		if err := format.read(ctx, br, w); err != nil {
			return sum, err
		}
		note = format.Lacks()
		if w.unmatched > 0 {
			note += fmt.Sprintf("; %d lines of the file did not match the format and were not imported (the import's warnings name the first)", w.unmatched)
			sum.Unmatched = w.unmatched
		}
	} else {
		if err := readKcatJSON(ctx, br, w); err != nil {
			return sum, err
		}
		if w.badLines > 0 {
			note += fmt.Sprintf("; %d lines of the file did not read as kcat -C -J and were not imported (the import's warnings name the first)", w.badLines)
			sum.BadLines = w.badLines
		}
	}
	return sum, w.finish(ctx, note)
}

// kcatWriter is the partitions of one kcat import: a sink each, met in
// the file's order.
type kcatWriter struct {
	dir         *catalog.Dir
	id          string
	opts        KcatOptions
	o           Options
	sum         *Summary
	parts       map[int32]*kcatPart
	otherTopics int
	unmatched   int
	badLines    int     // -J lines that did not read
	notRead     []error // partitions not imported, in the order met
}

// add writes a row read from the file's bytes lineStart..pos.
func (w *kcatWriter) add(ctx context.Context, row catalog.Row, lineStart, pos int64) error {
	p := w.parts[row.Partition]
	if p == nil {
		tp := catalog.TopicPartition{Topic: w.opts.Topic, Partition: row.Partition}
		lock, err := w.dir.LockPartition(ctx, tp)
		if err != nil && errors.Is(err, catalog.ErrTooManyFiles) {
			w.notImported(lockErr(err, tp), tp, row.Partition)
			return nil
		}
		if err != nil {
			return lockErr(err, tp)
		}
		m, err := w.dir.ReadManifest(ctx, tp)
		if err == nil {
			_, err = w.dir.CleanPartition(ctx, m)
		}
		if err != nil && costsPartition(err) {
			lock.Unlock()
			w.notImported(err, tp, row.Partition)
			return nil
		}
		if err != nil {
			lock.Unlock()
			return err
		}
		p = &kcatPart{s: newSink(w.dir, w.id, m, w.o.FileRows, w.o.FileBytes, w.sum), lock: lock, from: m.NextOffset, first: -1}
		p.s.warn = w.o.Warn
		p.s.source, p.s.srcFrom = w.opts.File, lineStart
		w.parts[row.Partition] = p
	}
	if p.damaged != nil {
		return nil
	}
	s := p.s
	if row.Offset < s.next {
		p.skipped++
		return nil
	}
	if p.first < 0 {
		p.first = row.Offset
	}
	if s.next < 0 {
		s.next = 0
		p.from = row.Offset
	}
	if s.len() == 0 && s.fw == nil {
		s.srcFrom = lineStart
	}
	s.lose(catalog.LostNotInFile, "", s.next, row.Offset-1)
	return s.add(ctx, row, pos)
}

// notImported records that partition n (tp) is not imported, for err.
func (w *kcatWriter) notImported(err error, tp catalog.TopicPartition, n int32) {
	warnNotImported(w.o.Warn, err, tp, w.notRead)
	w.notRead = append(w.notRead, err)
	w.parts[n] = &kcatPart{damaged: err}
}

// finish commits every partition, each with the note of what the file
// lacks.
func (w *kcatWriter) finish(ctx context.Context, note string) error {
	if w.otherTopics > 0 {
		w.o.Warn(fmt.Sprintf("%s: %d lines of other topics than %s left out", w.opts.File, w.otherTopics, w.opts.Topic))
	}
	if len(w.parts) == 0 {
		return exit.Errorf(ErrBadInput, "%s holds no line of topic %s", w.opts.File, w.opts.Topic)
	}
	ps := make([]int32, 0, len(w.parts))
	for n := range w.parts {
		ps = append(ps, n)
	}
	slices.Sort(ps)
	var damaged []error
	for _, n := range ps {
		p := w.parts[n]
		if p.damaged != nil {
			damaged = append(damaged, p.damaged)
			continue
		}
		if p.skipped > 0 {
			w.o.Warn(fmt.Sprintf("%s/%d: %d lines at offsets already imported (or repeated in the file) left out", w.opts.Topic, n, p.skipped))
		}
		if err := p.s.finishNote(ctx, p.from, p.first, "kcat", note); err != nil {
			return err
		}
	}
	return notImported(damaged)
}

// close drops what a failed import was writing and unlocks.
func (w *kcatWriter) close(err error) {
	for _, p := range w.parts {
		if p.damaged != nil {
			continue
		}
		if err != nil {
			p.s.abort()
		}
		p.lock.Unlock()
	}
}

// readKcatJSON reads the lines of kcat -C -J. The first was checked
// (checkFirstLine): a later line that does not read (cut short by a kcat
// stopped mid-write, past MaxKcatLine, not its JSON) costs that line,
// counted and the first five named, as a --kcat-format line that does not
// match; the offset it held is one the file passes over.
func readKcatJSON(ctx context.Context, br *bufio.Reader, w *kcatWriter) error {
	var pos int64
	bad := func(lineNo int, at int64, why string) {
		w.badLines++
		if w.badLines <= 5 {
			w.o.Warn(fmt.Sprintf("%s line %d (byte %d) is not a line of kcat -C -J (%s); not imported", w.opts.File, lineNo, at, why))
		}
	}
	for lineNo := 1; ; lineNo++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, n, rerr := readLine(br)
		if errors.Is(rerr, io.EOF) && n == 0 {
			return nil
		}
		lineStart := pos
		pos += n
		if errors.Is(rerr, errLongLine) {
			bad(lineNo, lineStart, rerr.Error())
			continue
		}
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return exit.Errorf(ErrBadInput, "%s line %d: %v", w.opts.File, lineNo, rerr)
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		topic, row, err := parseKcatLine(trimmed)
		if err != nil {
			bad(lineNo, lineStart, err.Error())
			continue
		}
		if topic != w.opts.Topic {
			w.otherTopics++
			continue
		}
		if err := w.add(ctx, row, lineStart, pos); err != nil {
			return err
		}
	}
}

// parseKcatLine reads one line of kcat -C -J (not blank) into its topic
// and row.
func parseKcatLine(line []byte) (string, catalog.Row, error) {
	var l kcatLine
	if err := json.Unmarshal(line, &l); err != nil {
		return "", catalog.Row{}, err
	}
	if l.Partition == nil || l.Offset == nil {
		return "", catalog.Row{}, errors.New("it lacks partition or offset")
	}
	if *l.Partition < 0 || *l.Offset < 0 || *l.Offset > MaxOffset {
		return "", catalog.Row{}, fmt.Errorf("partition %d offset %d (an offset is 0 to 2^62)", *l.Partition, *l.Offset)
	}
	row, err := kcatRow(&l)
	return l.Topic, row, err
}

// checkFirstLine reads the first line that is not blank: it must be a
// line of kcat -C -J, whole (a later one that is not costs its line).
func checkFirstLine(br *bufio.Reader, file string) error {
	for lineNo := 1; ; lineNo++ {
		line, _, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 {
			if _, _, perr := parseKcatLine(bytes.TrimSpace(line)); perr != nil {
				return exit.Errorf(ErrBadInput, "%s line %d is not a line of kcat -C -J (%v); give kcat's -J output (kcat -C -J -t TOPIC -e), or with --kcat-format the -f FORMAT it was written with", file, lineNo, perr)
			}
			return nil
		}
		if errors.Is(err, io.EOF) {
			return exit.Errorf(ErrBadInput, "%s is empty", file)
		}
		if err != nil {
			return exit.Errorf(ErrBadInput, "%s line %d: %v", file, lineNo, err)
		}
	}
}

// errLongLine is a line past MaxKcatLine.
var errLongLine = fmt.Errorf("a line past %d bytes", MaxKcatLine)

// readLine reads one line and says how many bytes it took, its newline
// included. A line past MaxKcatLine is not held: it is read to its end
// and errLongLine returned.
func readLine(br *bufio.Reader) ([]byte, int64, error) {
	var out []byte
	var n int64
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if n > MaxKcatLine {
			out = nil
		} else {
			out = append(out, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if n > MaxKcatLine && (err == nil || errors.Is(err, io.EOF)) {
			return nil, n, errLongLine
		}
		return out, n, err
	}
}

func kcatRow(l *kcatLine) (catalog.Row, error) {
	row := catalog.Row{Partition: *l.Partition, Offset: *l.Offset, Timestamp: l.TS, LeaderEpoch: -1, ProducerID: -1, ProducerEpoch: -1}
	switch l.TSType {
	case "create":
		row.TimestampType = catalog.TimestampCreate
	case "logappend":
		row.TimestampType = catalog.TimestampLogAppend
	default:
		row.TimestampType = catalog.TimestampNone
	}
	var err error
	if row.Key, err = rawBytes(l.Key); err != nil {
		return row, fmt.Errorf("key: %v", err)
	}
	if row.Value, err = rawBytes(l.Payload); err != nil {
		return row, fmt.Errorf("payload: %v", err)
	}
	if len(l.Headers) == 0 || string(l.Headers) == "null" {
		return row, nil
	}
	// Element by element, counted: only the headers kept are held.
	dec := json.NewDecoder(bytes.NewReader(l.Headers))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return row, errors.New("headers: not an array")
	}
	var key []byte
	n := 0
	for ; dec.More(); n++ {
		if n >= 2*MaxKcatHeaders {
			return row, fmt.Errorf("more than %d headers, past the %d a line may hold", MaxKcatHeaders, MaxKcatHeaders)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return row, fmt.Errorf("headers: %v", err)
		}
		if n%2 == 0 {
			k, err := rawBytes(raw)
			if err != nil || k == nil {
				return row, fmt.Errorf("header %d: its key is not a string", n/2)
			}
			key = k
			continue
		}
		v, err := rawBytes(raw)
		if err != nil {
			return row, fmt.Errorf("header %q: %v", key, err)
		}
		row.Headers = append(row.Headers, catalog.Header{Key: string(key), Value: v})
	}
	if n%2 != 0 {
		return row, fmt.Errorf("%d header fields: kcat -J writes key and value pairs", n)
	}
	return row, nil
}
