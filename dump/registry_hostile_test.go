package dump

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/topicsnap/topicsnap/schemas"
)

// warnings is a Progress that keeps the warnings.
type warnings struct {
	mu   sync.Mutex
	said []string
}

func (w *warnings) Start(catalog.TopicPartition, int64, int64)   {}
func (w *warnings) Advance(catalog.TopicPartition, int64, int64) {}
func (w *warnings) Done(catalog.TopicPartition)                  {}
func (w *warnings) Waiting(string)                               {}
func (w *warnings) Warn(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.said = append(w.said, s)
}

// TestDumpHostileRegistryCostsOneID: a registry that answers one id with
// something that is not JSON and another with an answer past
// schemas.MaxSchemaBytes costs those ids' records their decoding, each
// with value_decode_error naming the id and the cause, while the values
// of the good id, before and after them in the same partition, decode in
// the same run; nothing is warned of as a registry that cannot be reached.
func TestDumpHostileRegistryCostsOneID(t *testing.T) {
	huge := `{"schema":"\"` + strings.Repeat("s", schemas.MaxSchemaBytes) + `\""}`
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/schemas/ids/1":
			w.Write([]byte(`{"schema":"\"string\""}`))
		case "/schemas/ids/2":
			w.Write([]byte(`<html>not a registry</html>`))
		case "/schemas/ids/3":
			w.Write([]byte(huge))
		case "/schemas/ids/1/versions":
			w.Write([]byte(`[{"subject":"t-value","version":1}]`))
		default:
			http.NotFound(w, req)
		}
	}))
	defer reg.Close()
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 1, nil)
	wire := func(id byte, s string) []byte { return append([]byte{0, 0, 0, 0, id, byte(2 * len(s))}, s...) }
	ids := []byte{1, 2, 1, 3, 1, 2, 3, 1}
	var recs []*kgo.Record
	for i, id := range ids {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: 0, Value: wire(id, fmt.Sprint("v", i))})
	}
	produce(t, producer(t, brokers), recs...)
	dir := t.TempDir()
	w := &warnings{}
	s := dumpOnce(t, brokers, dir, topic, func(o *Options) {
		o.Registry = &schemas.Registry{URLs: []string{reg.URL}}
		o.Progress = w
	})
	if s.Decoded != 4 || s.DecodeErrors != 4 {
		t.Fatalf("summary: %s", s)
	}
	rows := readAllRows(t, dir, topic)[0]
	if len(rows) != len(ids) {
		t.Fatalf("%d rows, want %d", len(rows), len(ids))
	}
	why := map[byte]string{
		2: "schema 2 not fetched: the schema registry's answer is not a schema: invalid character '<'",
		3: "schema 3 not fetched: the schema registry's answer is larger than 4 MiB, the bound for one schema",
	}
	for i, r := range rows {
		id := ids[i]
		switch {
		case string(r.Value) != string(wire(id, fmt.Sprint("v", i))):
			t.Fatalf("offset %d: value %q not kept exactly", r.Offset, r.Value)
		case r.SchemaID == nil || *r.SchemaID != int32(id):
			t.Fatalf("offset %d: schema id %v, want %d", r.Offset, r.SchemaID, id)
		case id == 1 && (r.ValueDecodeError != nil || string(r.ValueDecoded) != fmt.Sprintf(`"v%d"`, i)):
			t.Fatalf("offset %d of the good schema: %s %v", r.Offset, r.ValueDecoded, r.ValueDecodeError)
		case id != 1 && (r.ValueDecoded != nil || r.ValueDecodeError == nil || !strings.HasPrefix(*r.ValueDecodeError, why[id])):
			t.Fatalf("offset %d of schema %d: %s, reason %v, want %q", r.Offset, id, r.ValueDecoded, r.ValueDecodeError, why[id])
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.said {
		if strings.Contains(s, "schema registry") {
			t.Fatalf("warned: %q", s)
		}
	}
}

// TestUntilBelowTheFolderIsSaid: a dump with --until below where the
// folder already holds a partition dumps nothing of it, and says why
// rather than a bare "dumped 0 records".
func TestUntilBelowTheFolderIsSaid(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 1, nil)
	p := producer(t, brokers)
	for i := range 10 {
		produce(t, p, &kgo.Record{Topic: topic, Value: []byte(fmt.Sprint(i))})
	}
	dir := t.TempDir()
	opts := Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}}
	if s, err := Run(t.Context(), opts); err != nil || s.Records != 10 {
		t.Fatalf("first dump: %v %v", s, err)
	}
	w := &warnings{}
	opts.Until, opts.Progress = "5", w
	s, err := Run(t.Context(), opts)
	if err != nil || s.Records != 0 {
		t.Fatalf("dump --until 5: %v %v, want nothing dumped", s, err)
	}
	if said := strings.Join(w.said, "\n"); !strings.Contains(said, topic+"/0: the folder already holds it up to offset 9, past --until 5: nothing of it is dumped") {
		t.Errorf("warnings %q: want the partition named with where the folder stands", said)
	}
}
