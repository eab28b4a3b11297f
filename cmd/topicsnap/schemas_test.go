package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// The schema-encoded topics' tests: producers write the Confluent wire
// format through franz-go's sr.Serde with schemas registered in a real
// Schema Registry (Apicurio, which make test starts: TOPICSNAP_TEST_REGISTRY),
// topicsnap dumps them, and everything after the dump runs from the folder.

func registryURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("TOPICSNAP_TEST_REGISTRY")
	if u == "" {
		t.Skip("needs a Schema Registry (TOPICSNAP_TEST_REGISTRY; make test starts Apicurio with scripts/registry.sh)")
	}
	return u
}

func srClient(t *testing.T, url string) *sr.Client {
	t.Helper()
	// A minute: a busy machine's registry takes seconds to compile a .proto.
	cl, err := sr.NewClient(sr.URLs(url), sr.HTTPClient(&http.Client{Timeout: time.Minute}))
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func register(t *testing.T, cl *sr.Client, subject string, s sr.Schema) int {
	t.Helper()
	ss, err := cl.CreateSchema(context.Background(), subject, s)
	if err != nil {
		t.Fatalf("register %s: %v", subject, err)
	}
	return ss.ID
}

// sqlJSON runs one query through the CLI and returns its rows.
func sqlJSON(t *testing.T, dir, q string) []map[string]any {
	t.Helper()
	code, out, errs := cli(t, "sql", "--dir", dir, "-c", q, "--format", "json")
	var rows []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil {
		t.Fatalf("sql %s: exit %d %q %q", q, code, out, errs)
	}
	return rows
}

func checkJSON(t *testing.T, args ...string) (int, map[string]any) {
	t.Helper()
	code, out, errs := cli(t, append(append([]string{"check"}, args...), "--format", "json")...)
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("check %v: exit %d %q %q", args, code, out, errs)
	}
	return code, doc
}

// Three versions of one Avro record: v2 adds a nullable note, v3 the
// logical types, an enum, an array, a map and a multi-type union.
const (
	avroV1 = `{"type":"record","name":"Event","namespace":"shop","fields":[
  {"name":"event_id","type":"string"},{"name":"amount","type":"long"}]}`
	avroV2 = `{"type":"record","name":"Event","namespace":"shop","fields":[
  {"name":"event_id","type":"string"},{"name":"amount","type":"long"},
  {"name":"note","type":["null","string"],"default":null}]}`
	avroV3 = `{"type":"record","name":"Event","namespace":"shop","fields":[
  {"name":"event_id","type":"string"},{"name":"amount","type":"long"},
  {"name":"note","type":["null","string"],"default":null},
  {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"},"default":0},
  {"name":"day","type":{"type":"int","logicalType":"date"},"default":0},
  {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2},"default":"\u0000"},
  {"name":"uid","type":{"type":"string","logicalType":"uuid"},"default":"00000000-0000-0000-0000-000000000000"},
  {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["BUY","SELL"]},"default":"BUY"},
  {"name":"tags","type":{"type":"array","items":"string"},"default":[]},
  {"name":"attrs","type":{"type":"map","values":"int"},"default":{}},
  {"name":"either","type":["null","int","string"],"default":null}]}`
)

type eventV1 struct {
	EventID string `avro:"event_id"`
	Amount  int64  `avro:"amount"`
}

type eventV2 struct {
	EventID string  `avro:"event_id"`
	Amount  int64   `avro:"amount"`
	Note    *string `avro:"note"`
}

type eventV3 struct {
	EventID string         `avro:"event_id"`
	Amount  int64          `avro:"amount"`
	Note    *string        `avro:"note"`
	TS      time.Time      `avro:"ts"`
	Day     time.Time      `avro:"day"`
	Price   *big.Rat       `avro:"price"`
	UID     string         `avro:"uid"`
	Kind    string         `avro:"kind"`
	Tags    []string       `avro:"tags"`
	Attrs   map[string]int `avro:"attrs"`
	Either  any            `avro:"either"`
}

// avroEnc is the serde encoder of one Avro schema.
func avroEnc(t *testing.T, text string) sr.EncodingOpt {
	s, err := avro.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return sr.EncodeFn(func(v any) ([]byte, error) { return avro.Marshal(s, v) })
}

type notAvro struct{ s string }

// produceAvro writes the Avro topic: ten records of each version, a
// tombstone, a value without the magic byte, one of an id the registry
// does not know and one whose payload is not what its schema says. It
// returns the three ids.
func produceAvro(t *testing.T, conn kafkaconn.Conn, cl *sr.Client, topic string, from int) [3]int {
	t.Helper()
	ctx := context.Background()
	subject := topic + "-value"
	var ids [3]int
	for i, s := range []string{avroV1, avroV2, avroV3} {
		ids[i] = register(t, cl, subject, sr.Schema{Schema: s, Type: sr.TypeAvro})
	}
	var serde sr.Serde
	serde.Register(ids[0], eventV1{}, avroEnc(t, avroV1))
	serde.Register(ids[1], eventV2{}, avroEnc(t, avroV2))
	serde.Register(ids[2], eventV3{}, avroEnc(t, avroV3))
	// An id no registry knows, and a payload that is not v1's record (a
	// serde of their own: one id maps to one type).
	var bad, unknown sr.Serde
	unknown.Register(987654, &struct{ N int }{}, sr.EncodeFn(func(v any) ([]byte, error) {
		return avro.Marshal(avro.MustParse(`"int"`), v.(*struct{ N int }).N)
	}))
	bad.Register(ids[0], notAvro{}, sr.EncodeFn(func(v any) ([]byte, error) {
		return avro.Marshal(avro.MustParse(`"int"`), -1) // a negative length for event_id
	}))
	note := "gift"
	var recs []dump.Record
	add := func(v any) {
		enc := &serde
		switch v.(type) {
		case notAvro:
			enc = &bad
		case *struct{ N int }:
			enc = &unknown
		}
		b, err := enc.Encode(v)
		if err != nil {
			t.Fatalf("encode %T: %v", v, err)
		}
		recs = append(recs, dump.Record{Topic: topic, Partition: int32(len(recs) % 2), Value: b})
	}
	for i := from; i < from+10; i++ {
		add(eventV1{EventID: fmt.Sprintf("e%03d", i), Amount: int64(i)})
	}
	for i := from + 10; i < from+20; i++ {
		add(eventV2{EventID: fmt.Sprintf("e%03d", i), Amount: int64(i), Note: &note})
	}
	ts := time.Date(2026, 3, 14, 9, 26, 53, 589e6, time.UTC)
	for i := from + 20; i < from+30; i++ { // v3 without a note
		var either any = map[string]any{"int": i}
		if i%2 == 1 {
			either = map[string]any{"string": "odd"}
		}
		add(eventV3{EventID: fmt.Sprintf("e%03d", i), Amount: int64(i), TS: ts, Day: time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC),
			Price: big.NewRat(123456, 100), UID: "6f1c2b9e-4d3a-4c8e-9a5b-2f1e0d9c8b7a", Kind: "SELL",
			Tags: []string{"a", "b"}, Attrs: map[string]int{"x": 1}, Either: either})
	}
	recs = append(recs, dump.Record{Topic: topic, Partition: 0, Key: []byte("tomb")}) // a tombstone
	recs = append(recs, dump.Record{Topic: topic, Partition: 1, Value: []byte("plain text")})
	add(&struct{ N int }{7})
	add(notAvro{})
	if err := dump.Produce(ctx, conn, recs); err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestAvroTopicThroughRegistry(t *testing.T) {
	url := registryURL(t)
	bs := brokers(t)
	b := strings.Join(bs, ",")
	conn := kafkaconn.Conn{Brokers: bs}
	ctx := context.Background()
	cl := srClient(t, url)
	topic := fmt.Sprintf("avro-events-%d", time.Now().UnixNano()%1e9)
	if err := dump.CreateTopic(ctx, conn, topic, 2, nil); err != nil {
		t.Fatal(err)
	}
	ids := produceAvro(t, conn, cl, topic, 0)

	// The registry's settings as Confluent's clients write them; the
	// password is never printed (Apicurio here runs without auth and
	// ignores the credentials).
	dir := t.TempDir()
	props := filepath.Join(t.TempDir(), "client.properties")
	os.WriteFile(props, []byte(fmt.Sprintf("bootstrap.servers=%s\nschema.registry.url=%s\nbasic.auth.credentials.source=USER_INFO\nbasic.auth.user.info=reader:s3cret-pw\n", b, url)), 0o600)
	code, out, errs := cli(t, "dump", "--config", props, "--topic", topic, "--dir", dir)
	if code != 0 || !strings.Contains(out, "dumped 34 records") || !strings.Contains(out, "30 values decoded with their schema, 2 not decoded") {
		t.Fatalf("dump: %d %q %q", code, out, errs)
	}
	for _, id := range ids {
		b, err := os.ReadFile(filepath.Join(dir, "schemas", fmt.Sprintf("%d.json", id)))
		if err != nil || bytes.Contains(b, []byte("s3cret")) {
			t.Fatalf("schema %d stored: %v %s", id, err, b)
		}
	}
	if strings.Contains(out+errs, "s3cret") {
		t.Fatalf("the password was printed: %q %q", out, errs)
	}

	// The registry forgets the subject: the folder answers alone.
	if _, err := cl.DeleteSubject(ctx, topic+"-value", sr.SoftDelete); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.DeleteSubject(ctx, topic+"-value", sr.HardDelete); err != nil {
		t.Fatal(err)
	}

	q := fmt.Sprintf(`SELECT count(*) AS n, count(DISTINCT value.event_id) AS ids, count(value.note) AS notes,
  count(DISTINCT schema_id) AS schemas, min(schema_version) AS v1, max(schema_version) AS v3, any_value(schema_subject) AS subject
FROM %s WHERE value IS NOT NULL`, QuoteIdentForTest(topic))
	rows := sqlJSON(t, dir, q)
	r := rows[0]
	if r["n"] != 30.0 || r["ids"] != 30.0 || r["notes"] != 10.0 || r["schemas"] != 3.0 || r["v1"] != 1.0 || r["v3"] != 3.0 || r["subject"] != topic+"-value" {
		t.Fatalf("evolution across three versions: %v", r)
	}
	// Fields a version lacks are NULL; v3's types as the writer wrote them.
	rows = sqlJSON(t, dir, fmt.Sprintf(`SELECT value.note AS note, value.ts::TIMESTAMPTZ AS ts, value.day::DATE::VARCHAR AS day,
  value.price::DECIMAL(10,2) AS price, value.uid::UUID::VARCHAR AS uid, value.kind AS kind, value.tags AS tags, value.attrs.x AS x,
  value.either AS either, value.amount + 1 AS amount1
FROM %s WHERE value.event_id IN ('e001', 'e021', 'e022') ORDER BY value.event_id`, QuoteIdentForTest(topic)))
	if len(rows) != 3 || rows[0]["note"] != nil || rows[0]["ts"] != nil || rows[0]["amount1"] != 2.0 {
		t.Fatalf("a v1 record: %v", rows)
	}
	got, _ := json.Marshal(rows[1])
	for _, want := range []string{`"day":"2026-03-14"`, `"price":1234.56`, `"uid":"6f1c2b9e-4d3a-4c8e-9a5b-2f1e0d9c8b7a"`,
		`"kind":"SELL"`, `"tags":["a","b"]`, `"x":1`, `"note":null`, `"ts":"2026-03-14T09:26:53.589Z"`, `"string":"odd"`} {
		if !bytes.Contains(got, []byte(want)) {
			t.Fatalf("a v3 record lacks %s: %s", want, got)
		}
	}
	if got, _ := json.Marshal(rows[2]["either"]); !bytes.Contains(got, []byte(`"int":22`)) {
		t.Fatalf("a union's int branch: %s", got)
	}
	// Typed by the writer schemas, not by a sample of the JSON.
	rows = sqlJSON(t, dir, fmt.Sprintf(`SELECT typeof(value.amount) AS amount, typeof(value.ts) AS ts, typeof(value.day) AS day,
  typeof(value.price) AS price, typeof(value.uid) AS uid, typeof(value.attrs) AS attrs, typeof(value.tags) AS tags,
  typeof(value.either) AS either, typeof(value.note) AS note FROM %s LIMIT 1`, QuoteIdentForTest(topic)))
	got, _ = json.Marshal(rows[0])
	if want := `{"amount":"BIGINT","attrs":"MAP(VARCHAR, INTEGER)","day":"DATE","either":"STRUCT(\"int\" INTEGER, string VARCHAR)","note":"VARCHAR","price":"DECIMAL(10,2)","tags":"VARCHAR[]","ts":"TIMESTAMP WITH TIME ZONE","uid":"UUID"}`; string(got) != want {
		t.Fatalf("types:\n got %s\nwant %s", got, want)
	}

	// The values check counts what did not decode, and says why.
	code, doc := checkJSON(t, "values", "--dir", dir, "--topic", topic)
	sum := doc["summary"].(map[string]any)
	msg := fmt.Sprint(doc["message"])
	if code != 0 || doc["status"] != "warn" || sum["format"] != "avro" || sum["unparsed_records"] != 3.0 || sum["null_values"] != 1.0 ||
		!strings.Contains(msg, "schema 987654 is unknown to the registry") || !strings.Contains(msg, fmt.Sprintf("does not decode with schema %d", ids[0])) ||
		!strings.Contains(msg, "no magic byte") {
		t.Fatalf("check values: %d %v", code, doc)
	}
	// Other checks run on the Avro topic as on JSON: 30 distinct event
	// ids, and the four values without one (tombstone, plain text, unknown
	// id, bad payload) have no id, as JSON values without the field: not
	// judged, so warn.
	code, doc = checkJSON(t, "duplicates", "--dir", dir, "--topic", topic, "--id", "value.event_id")
	sum = doc["summary"].(map[string]any)
	if code != 0 || doc["status"] != "warn" || sum["distinct_ids"] != 30.0 || sum["duplicate_ids"] != 0.0 || sum["extra_copies"] != 0.0 || sum["records_without_id"] != 4.0 {
		t.Fatalf("check duplicates on value.event_id: %d %v", code, doc)
	}
	if code, doc = checkJSON(t, "gaps", "--dir", dir, "--topic", topic); code != 0 || doc["status"] != "ok" {
		t.Fatalf("check gaps: %d %v", code, doc)
	}
	// catalog verify: the one id the folder lacks is the one the registry
	// never knew, a note and no damage (it was exit 9, "dump again with the
	// schema registry reachable").
	code, out, _ = cli(t, "catalog", "verify", "--dir", dir)
	if code != 0 || !strings.Contains(out, "note: schema id 987654 (met in topic "+topic+") was unknown to the schema registry") || strings.Contains(out, fmt.Sprintf("schema id %d ", ids[0])) {
		t.Fatalf("verify: %d %q", code, out)
	}
}

// QuoteIdentForTest quotes a topic name for the tests' SQL.
func QuoteIdentForTest(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func TestRegistryDownThenBack(t *testing.T) {
	url := registryURL(t)
	bs := brokers(t)
	b := strings.Join(bs, ",")
	conn := kafkaconn.Conn{Brokers: bs}
	ctx := context.Background()
	cl := srClient(t, url)
	topic := fmt.Sprintf("avro-down-%d", time.Now().UnixNano()%1e9)
	if err := dump.CreateTopic(ctx, conn, topic, 2, nil); err != nil {
		t.Fatal(err)
	}
	ids := produceAvro(t, conn, cl, topic, 0)
	dir := t.TempDir()
	// Nothing listens on the discard port of loopback: the registry is down.
	code, out, errs := cli(t, "dump", "--brokers", b, "--topic", topic, "--dir", dir, "--schema-registry", "http://127.0.0.1:9/apis/ccompat/v7")
	if code != 0 || !strings.Contains(out, "dumped 34 records") || !strings.Contains(out, "0 values decoded with their schema, 32 not decoded") ||
		!strings.Contains(errs, "cannot be reached") {
		t.Fatalf("dump with the registry down: %d %q %q", code, out, errs)
	}
	rows := sqlJSON(t, dir, fmt.Sprintf(`SELECT count(*) FILTER (WHERE value_error LIKE '%%not fetched: the schema registry cannot be reached') AS down,
  count(*) FILTER (WHERE value_raw IS NOT NULL) AS kept FROM %s`, QuoteIdentForTest(topic)))
	if rows[0]["down"] != 32.0 || rows[0]["kept"] != 33.0 {
		t.Fatalf("undecoded values keep their bytes and say why: %v", rows)
	}
	code, out, _ = cli(t, "catalog", "verify", "--dir", dir)
	for _, id := range ids {
		if code != exitBadFolder || !strings.Contains(out, fmt.Sprintf("schema id %d (met in topic %s)", id, topic)) {
			t.Fatalf("verify names schema %d: %d %q", id, code, out)
		}
	}
	// The next dump, with the registry back, fetches the schemas.
	produceAvro(t, conn, cl, topic, 100)
	code, out, errs = cli(t, "dump", "--brokers", b, "--topic", topic, "--dir", dir, "--schema-registry", url)
	if code != 0 || !strings.Contains(out, "30 values decoded with their schema, 2 not decoded") {
		t.Fatalf("dump with the registry back: %d %q %q", code, out, errs)
	}
	// 987654, which the registry does not know, is a note (it was exit 9).
	code, out, _ = cli(t, "catalog", "verify", "--dir", dir)
	if code != 0 || !strings.Contains(out, "note: schema id 987654") || strings.Contains(out, fmt.Sprintf("schema id %d ", ids[0])) {
		t.Fatalf("verify after the registry came back: %d %q", code, out)
	}
}

// Protobuf: a schema that imports another (a registry reference) and a
// nested message chosen by the wire format's message indexes, with the
// well-known Timestamp, an enum, repeated, map and oneof fields.
const (
	protoCommon = `syntax = "proto3";
package shop.common;
message Money { string currency = 1; int64 units = 2; }
`
	protoMain = `syntax = "proto3";
package shop;
import "shop/common.proto";
import "google/protobuf/timestamp.proto";
message Unused { string x = 1; }
message Envelope {
  message Order {
    enum Status { UNKNOWN = 0; PAID = 1; SHIPPED = 2; }
    string order_id = 1;
    shop.common.Money total = 2;
    google.protobuf.Timestamp at = 3;
    Status status = 4;
    repeated string skus = 5;
    map<string, int32> qty = 6;
    oneof pay { string card = 7; string voucher = 8; }
  }
  Order order = 1;
}
`
)

func TestProtobufTopicThroughRegistry(t *testing.T) {
	url := registryURL(t)
	bs := brokers(t)
	b := strings.Join(bs, ",")
	conn := kafkaconn.Conn{Brokers: bs}
	ctx := context.Background()
	cl := srClient(t, url)
	stamp := time.Now().UnixNano() % 1e9
	topic := fmt.Sprintf("proto-orders-%d", stamp)
	if err := dump.CreateTopic(ctx, conn, topic, 1, nil); err != nil {
		t.Fatal(err)
	}
	commonSubject := fmt.Sprintf("shop-common-%d", stamp)
	register(t, cl, commonSubject, sr.Schema{Schema: protoCommon, Type: sr.TypeProtobuf})
	id := register(t, cl, topic+"-value", sr.Schema{Schema: protoMain, Type: sr.TypeProtobuf,
		References: []sr.SchemaReference{{Name: "shop/common.proto", Subject: commonSubject, Version: 1}}})

	// The producer's side: the same .proto compiled, messages built dynamically.
	comp := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: func(p string) (io.ReadCloser, error) {
			src := map[string]string{"main.proto": protoMain, "shop/common.proto": protoCommon}[p]
			if src == "" {
				return nil, os.ErrNotExist
			}
			return io.NopCloser(strings.NewReader(src)), nil
		}})}
	files, err := comp.Compile(ctx, "main.proto")
	if err != nil {
		t.Fatal(err)
	}
	orderMD := files[0].Messages().ByName("Envelope").Messages().ByName("Order")
	var serde sr.Serde
	serde.Register(id, &dynamicpb.Message{}, sr.Index(1, 0), sr.EncodeFn(func(v any) ([]byte, error) { return proto.Marshal(v.(*dynamicpb.Message)) }))
	var recs []dump.Record
	for i := 0; i < 20; i++ {
		m := dynamicpb.NewMessage(orderMD)
		fd := orderMD.Fields()
		m.Set(fd.ByName("order_id"), protoreflect.ValueOfString(fmt.Sprintf("o%02d", i)))
		money := dynamicpb.NewMessage(fd.ByName("total").Message())
		money.Set(money.Descriptor().Fields().ByName("currency"), protoreflect.ValueOfString("EUR"))
		money.Set(money.Descriptor().Fields().ByName("units"), protoreflect.ValueOfInt64(int64(100+i)))
		m.Set(fd.ByName("total"), protoreflect.ValueOfMessage(money))
		at := dynamicpb.NewMessage(fd.ByName("at").Message())
		ts := timestamppb.New(time.Date(2026, 3, 14, 9, 0, i, 0, time.UTC))
		at.Set(at.Descriptor().Fields().ByName("seconds"), protoreflect.ValueOfInt64(ts.Seconds))
		m.Set(fd.ByName("at"), protoreflect.ValueOfMessage(at))
		m.Set(fd.ByName("status"), protoreflect.ValueOfEnum(2))
		skus := m.Mutable(fd.ByName("skus")).List()
		skus.Append(protoreflect.ValueOfString("tea"))
		skus.Append(protoreflect.ValueOfString("cup"))
		m.Mutable(fd.ByName("qty")).Map().Set(protoreflect.ValueOfString("tea").MapKey(), protoreflect.ValueOfInt32(int32(i)))
		if i%2 == 0 {
			m.Set(fd.ByName("card"), protoreflect.ValueOfString("visa"))
		} else {
			m.Set(fd.ByName("voucher"), protoreflect.ValueOfString("V1"))
		}
		v, err := serde.Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, dump.Record{Topic: topic, Value: v})
	}
	if err := dump.Produce(ctx, conn, recs); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Setenv("TOPICSNAP_SCHEMA_REGISTRY_URL", url)
	code, out, errs := cli(t, "dump", "--brokers", b, "--topic", topic, "--dir", dir)
	if code != 0 || !strings.Contains(out, "20 values decoded with their schema, 0 not decoded") {
		t.Fatalf("dump: %d %q %q", code, out, errs)
	}
	// The reference is stored under its own id, named by the main schema.
	var stored struct {
		References []struct {
			Name string `json:"name"`
			ID   int    `json:"id"`
		} `json:"references"`
	}
	b2, _ := os.ReadFile(filepath.Join(dir, "schemas", fmt.Sprintf("%d.json", id)))
	if json.Unmarshal(b2, &stored) != nil || len(stored.References) != 1 || stored.References[0].Name != "shop/common.proto" {
		t.Fatalf("stored schema: %s", b2)
	}
	if _, err := os.Stat(filepath.Join(dir, "schemas", fmt.Sprintf("%d.json", stored.References[0].ID))); err != nil {
		t.Fatalf("the reference is not stored: %v", err)
	}
	rows := sqlJSON(t, dir, fmt.Sprintf(`SELECT value.order_id AS id, value.total.currency AS cur, value.total.units::BIGINT AS units,
  value."at"::TIMESTAMPTZ AS "at", value.status AS status, value.skus AS skus, value.qty.tea AS tea, value.card AS card, value.voucher AS voucher
FROM %s ORDER BY "offset" LIMIT 2`, QuoteIdentForTest(topic)))
	got, _ := json.Marshal(rows)
	for _, want := range []string{`"id":"o00"`, `"cur":"EUR"`, `"units":100`, `"at":"2026-03-14T09:00:00Z"`, `"status":"SHIPPED"`,
		`"skus":["tea","cup"]`, `"tea":1`, `"card":"visa"`, `"voucher":"V1"`} {
		if !bytes.Contains(got, []byte(want)) {
			t.Fatalf("protobuf values lack %s: %s", want, got)
		}
	}
	rows = sqlJSON(t, dir, fmt.Sprintf(`SELECT typeof(value.total.units) AS units, typeof(value."at") AS "at", typeof(value.qty) AS qty,
  typeof(value.status) AS status FROM %s LIMIT 1`, QuoteIdentForTest(topic)))
	got, _ = json.Marshal(rows[0])
	if want := `{"at":"TIMESTAMP WITH TIME ZONE","qty":"MAP(VARCHAR, INTEGER)","status":"VARCHAR","units":"BIGINT"}`; string(got) != want {
		t.Fatalf("types:\n got %s\nwant %s", got, want)
	}
	code, doc := checkJSON(t, "values", "--dir", dir, "--topic", topic)
	if code != 0 || doc["status"] != "ok" || doc["summary"].(map[string]any)["format"] != "protobuf" {
		t.Fatalf("check values: %d %v", code, doc)
	}
}

func TestJSONSchemaTopicThroughRegistry(t *testing.T) {
	url := registryURL(t)
	bs := brokers(t)
	conn := kafkaconn.Conn{Brokers: bs}
	ctx := context.Background()
	cl := srClient(t, url)
	topic := fmt.Sprintf("jsonschema-%d", time.Now().UnixNano()%1e9)
	if err := dump.CreateTopic(ctx, conn, topic, 1, nil); err != nil {
		t.Fatal(err)
	}
	id := register(t, cl, topic+"-value", sr.Schema{Type: sr.TypeJSON,
		Schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"sensor":{"type":"string"},"kw":{"type":"number"}}}`})
	var serde sr.Serde
	serde.Register(id, map[string]any{}, sr.EncodeFn(json.Marshal))
	var recs []dump.Record
	for i := 0; i < 10; i++ {
		v, err := serde.Encode(map[string]any{"sensor": fmt.Sprintf("t%d", i%3), "kw": 1.5 * float64(i)})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, dump.Record{Topic: topic, Value: v})
	}
	if err := dump.Produce(ctx, conn, recs); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code, out, errs := cli(t, "dump", "--brokers", strings.Join(bs, ","), "--topic", topic, "--dir", dir, "--schema-registry", url)
	if code != 0 || !strings.Contains(out, "10 values decoded") {
		t.Fatalf("dump: %d %q %q", code, out, errs)
	}
	rows := sqlJSON(t, dir, fmt.Sprintf(`SELECT count(DISTINCT value.sensor) AS sensors, sum(value.kw) AS kw FROM %s`, QuoteIdentForTest(topic)))
	if rows[0]["sensors"] != 3.0 || rows[0]["kw"] != 67.5 {
		t.Fatalf("json schema values: %v", rows)
	}
}

// TestSchemaFolderWithoutRegistry reads the schemas from --schema DIR, as
// on a host that cannot reach the registry, and stores them in the folder.
func TestSchemaFolderWithoutRegistry(t *testing.T) {
	bs := brokers(t)
	conn := kafkaconn.Conn{Brokers: bs}
	ctx := context.Background()
	topic := fmt.Sprintf("avro-airgap-%d", time.Now().UnixNano()%1e9)
	if err := dump.CreateTopic(ctx, conn, topic, 1, nil); err != nil {
		t.Fatal(err)
	}
	const id = 4242
	var serde sr.Serde
	serde.Register(id, eventV2{}, avroEnc(t, avroV2))
	var recs []dump.Record
	for i := 0; i < 5; i++ {
		v, err := serde.Encode(eventV2{EventID: fmt.Sprint(i), Amount: int64(i)})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, dump.Record{Topic: topic, Value: v})
	}
	if err := dump.Produce(ctx, conn, recs); err != nil {
		t.Fatal(err)
	}
	schemaDir := t.TempDir()
	os.WriteFile(filepath.Join(schemaDir, fmt.Sprintf("%d.avsc", id)), []byte(avroV2), 0o644)
	dir := t.TempDir()
	code, out, errs := cli(t, "dump", "--brokers", strings.Join(bs, ","), "--topic", topic, "--dir", dir, "--schema", schemaDir)
	if code != 0 || !strings.Contains(out, "5 values decoded") {
		t.Fatalf("dump --schema: %d %q %q", code, out, errs)
	}
	rows := sqlJSON(t, dir, fmt.Sprintf(`SELECT sum(value.amount) AS s, count(value.note) AS notes, any_value(schema_id) AS id FROM %s`, QuoteIdentForTest(topic)))
	if rows[0]["s"] != 10.0 || rows[0]["notes"] != 0.0 || rows[0]["id"] != float64(id) {
		t.Fatalf("values: %v", rows)
	}
	if code, out, _ := cli(t, "catalog", "verify", "--dir", dir); code != 0 {
		t.Fatalf("verify: %d %q", code, out)
	}
	// Registry-less Avro: a topic of bare Avro values (no header) and its
	// one schema, TOPIC.avsc.
	bareTopic := topic + "-bare"
	if err := dump.CreateTopic(ctx, conn, bareTopic, 1, nil); err != nil {
		t.Fatal(err)
	}
	s2 := avro.MustParse(avroV2)
	recs = nil
	for i := 0; i < 4; i++ {
		v, err := avro.Marshal(s2, eventV2{EventID: fmt.Sprint(i), Amount: int64(10 * i)})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, dump.Record{Topic: bareTopic, Value: v})
	}
	recs = append(recs, dump.Record{Topic: bareTopic, Value: []byte{0xff}}) // not this schema's
	if err := dump.Produce(ctx, conn, recs); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(schemaDir, bareTopic+".avsc"), []byte(avroV2), 0o644)
	code, out, errs = cli(t, "dump", "--brokers", strings.Join(bs, ","), "--topic", bareTopic, "--dir", dir, "--schema", schemaDir)
	if code != 0 || !strings.Contains(out, "4 values decoded with their schema, 1 not decoded") {
		t.Fatalf("dump of bare Avro: %d %q %q", code, out, errs)
	}
	rows = sqlJSON(t, dir, fmt.Sprintf(`SELECT sum(value.amount) AS s, count(schema_id) AS ids, count(value_error) AS errs,
  any_value(value_error) AS why FROM %s`, QuoteIdentForTest(bareTopic)))
	if rows[0]["s"] != 60.0 || rows[0]["ids"] != 0.0 || rows[0]["errs"] != 1.0 || !strings.Contains(fmt.Sprint(rows[0]["why"]), "does not decode with the topic's schema") {
		t.Fatalf("bare Avro values: %v", rows)
	}
	if _, err := os.Stat(filepath.Join(dir, "schemas", "topic="+bareTopic+".json")); err != nil {
		t.Fatalf("the bare topic's schema is not stored: %v", err)
	}
	// A file named neither by an id nor as a topic's Avro schema is refused
	// before anything is written.
	os.WriteFile(filepath.Join(schemaDir, "orders.json"), []byte(`{}`), 0o644)
	dir2 := filepath.Join(t.TempDir(), "new")
	code, _, errs = cli(t, "dump", "--brokers", strings.Join(bs, ","), "--topic", topic, "--dir", dir2, "--schema", schemaDir)
	if code != exitError || !strings.Contains(errs, "orders.json") {
		t.Fatalf("a badly named schema file: %d %q", code, errs)
	}
	if _, err := os.Stat(dir2); !os.IsNotExist(err) {
		t.Fatalf("refused dump wrote %s: %v", dir2, err)
	}
}

// cutTime is a cut's time in a check's message (display.Time; RFC 3339 too).
var cutTime = regexp.MustCompile(`\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?Z`)

// TestDemoAvroAgreesWithJSON runs the demo twice, with the tea shop's
// events as JSON and as Avro (through the demo's in-process registry): every
// check gives the same verdict and message, from a folder the registry
// is gone from.
func TestDemoAvroAgreesWithJSON(t *testing.T) {
	verdicts := func(format string) (string, string) {
		dir := filepath.Join(t.TempDir(), "demo")
		code, out, errs := cli(t, "demo", "--dir", dir, "--users", "300", "--serve=false", "--format", format)
		if code != 0 {
			t.Fatalf("demo --format %s: %d %q %q", format, code, out, errs)
		}
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "warn ") || strings.HasPrefix(l, "fail ") {
				// The cuts' times are each run's own; values says how
				// it read them (parsed as JSON, decoded with the schema):
				// its verdict must agree, its words differ by design.
				l = cutTime.ReplaceAllString(l, "TIME")
				if f := strings.Fields(l); f[1] == "values" {
					l = f[0] + " values"
				}
				lines = append(lines, l)
			}
		}
		return strings.Join(lines, "\n"), out
	}
	j, _ := verdicts("json")
	a, out := verdicts("avro")
	if j != a || len(strings.Split(j, "\n")) != len(demoChecks("")) {
		t.Fatalf("verdicts differ\njson:\n%s\navro:\n%s", j, a)
	}
	if !strings.Contains(out, "values decoded with their schema, 0 not decoded") {
		t.Fatalf("the Avro demo's dump: %q", out)
	}
}
