package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// Keys in the Confluent wire format (subject TOPIC-key), written by a real
// serializer (franz-go's sr.Serde) with schemas registered in the real
// registry, are decoded as values are: key.field works, checks take
// --id key.field, and a key that does not decode keeps its bytes in
// key_raw with the reason in key_error.

const avroKey = `{"type":"record","name":"OrderKey","namespace":"shop","fields":[
  {"name":"order_id","type":"string"},{"name":"shop","type":"int"}]}`

type orderKey struct {
	OrderID string `avro:"order_id"`
	Shop    int32  `avro:"shop"`
}

func TestAvroKeysThroughRegistry(t *testing.T) {
	url := registryURL(t)
	bs := brokers(t)
	b := strings.Join(bs, ",")
	conn := kafkaconn.Conn{Brokers: bs}
	ctx := context.Background()
	cl := srClient(t, url)
	topic := fmt.Sprintf("avro-keys-%d", time.Now().UnixNano()%1e9)
	if err := dump.CreateTopic(ctx, conn, topic, 2, nil); err != nil {
		t.Fatal(err)
	}
	keyID := register(t, cl, topic+"-key", sr.Schema{Schema: avroKey, Type: sr.TypeAvro})
	valueID := register(t, cl, topic+"-value", sr.Schema{Schema: avroV1, Type: sr.TypeAvro})
	var keys, values, unknown sr.Serde
	keys.Register(keyID, orderKey{}, avroEnc(t, avroKey))
	values.Register(valueID, eventV1{}, avroEnc(t, avroV1))
	unknown.Register(987655, orderKey{}, avroEnc(t, avroKey)) // an id no registry knows
	var recs []dump.Record
	for i := 0; i < 20; i++ {
		// Orders o00..o09, each twice: a duplicate per key.
		k, err := keys.Encode(orderKey{OrderID: fmt.Sprintf("o%02d", i%10), Shop: int32(i % 3)})
		if err != nil {
			t.Fatal(err)
		}
		v, err := values.Encode(eventV1{EventID: fmt.Sprintf("e%03d", i), Amount: int64(i)})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, dump.Record{Topic: topic, Partition: int32(i % 2), Key: k, Value: v})
	}
	bad, err := unknown.Encode(orderKey{OrderID: "ghost", Shop: 9})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := values.Encode(eventV1{EventID: "e100", Amount: 100})
	recs = append(recs,
		dump.Record{Topic: topic, Partition: 0, Key: bad, Value: v},                                           // unknown key schema
		dump.Record{Topic: topic, Partition: 1, Key: []byte("plain-key"), Value: v},                           // no magic byte
		dump.Record{Topic: topic, Partition: 1, Key: nil, Value: v},                                           // no key
		dump.Record{Topic: topic, Partition: 0, Key: append([]byte{0, 0, 0, 0, byte(keyID)}, 0xff), Value: v}, // a payload its schema does not read
	)
	if keyID > 255 {
		t.Fatalf("key id %d does not fit the hand-made header", keyID)
	}
	if err := dump.Produce(ctx, conn, recs); err != nil {
		t.Fatal(err)
	}

	// A dump with the registry down keeps every key's bytes and says why.
	downDir := t.TempDir()
	code, out, errs := cli(t, "dump", "--brokers", b, "--topic", topic, "--dir", downDir, "--schema-registry", "http://127.0.0.1:9/apis/ccompat/v7")
	if code != 0 || !strings.Contains(out, "0 keys decoded with their schema, 22 not decoded") {
		t.Fatalf("dump with the registry down: %d %q %q", code, out, errs)
	}
	rows := sqlJSON(t, downDir, fmt.Sprintf(`SELECT count(*) FILTER (WHERE key_error LIKE '%%cannot be reached') AS down,
  count(key_raw) AS kept, count(*) FILTER (WHERE key_error LIKE 'no magic byte%%') AS plain FROM %s`, QuoteIdentForTest(topic)))
	if rows[0]["down"] != 22.0 || rows[0]["kept"] != 23.0 || rows[0]["plain"] != 1.0 {
		t.Fatalf("undecoded keys keep their bytes and say why: %v", rows)
	}

	dir := t.TempDir()
	code, out, errs = cli(t, "dump", "--brokers", b, "--topic", topic, "--dir", dir, "--schema-registry", url)
	if code != 0 || !strings.Contains(out, "20 keys decoded with their schema, 2 not decoded") || !strings.Contains(out, "24 values decoded") {
		t.Fatalf("dump: %d %q %q", code, out, errs)
	}
	// A folder whose first dump had no registry: its wire-format keys say
	// they were not decoded (not "no magic byte"); the next dump, with the
	// registry, decodes the new ones.
	mixed := t.TempDir()
	if code, out, errs := cli(t, "dump", "--brokers", b, "--topic", topic, "--dir", mixed); code != 0 || strings.Contains(out, "keys decoded") {
		t.Fatalf("dump without a registry: %d %q %q", code, out, errs)
	}
	k, _ := keys.Encode(orderKey{OrderID: "late", Shop: 2})
	if err := dump.Produce(ctx, conn, []dump.Record{{Topic: topic, Partition: 1, Key: k, Value: v}}); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := cli(t, "dump", "--brokers", b, "--topic", topic, "--dir", mixed, "--schema-registry", url); code != 0 || !strings.Contains(out, "1 keys decoded with their schema, 0 not decoded") {
		t.Fatalf("the next dump, with the registry: %d %q %q", code, out, errs)
	}
	rows = sqlJSON(t, mixed, fmt.Sprintf(`SELECT count(*) FILTER (WHERE key_error LIKE 'not decoded: the dump that read it had no schema registry%%') AS untried,
  count(*) FILTER (WHERE key_error LIKE 'no magic byte%%') AS plain, list(key.order_id) FILTER (WHERE key IS NOT NULL) AS decoded FROM %s`, QuoteIdentForTest(topic)))
	if got, _ := json.Marshal(rows[0]); string(got) != `{"decoded":["late"],"plain":1,"untried":22}` {
		t.Fatalf("keys of a dump without a registry: %s", got)
	}

	// The registry forgets both subjects before anything is queried.
	for _, s := range []string{topic + "-key", topic + "-value"} {
		if _, err := cl.DeleteSubject(ctx, s, sr.SoftDelete); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.DeleteSubject(ctx, s, sr.HardDelete); err != nil {
			t.Fatal(err)
		}
	}
	rows = sqlJSON(t, dir, fmt.Sprintf(`SELECT key.order_id AS id, key.shop AS shop, typeof(key) AS type, key_schema_id AS kid,
  key_schema_subject AS subject, key_schema_version AS version, key_error AS why, value.event_id AS event, schema_id AS vid
FROM %s WHERE "partition" = 0 ORDER BY "offset" LIMIT 1`, QuoteIdentForTest(topic)))
	got, _ := json.Marshal(rows[0])
	want := fmt.Sprintf(`{"event":"e000","id":"o00","kid":%d,"shop":0,"subject":"%s-key","type":"STRUCT(order_id VARCHAR, shop INTEGER)","version":1,"vid":%d,"why":null}`, keyID, topic, valueID)
	if string(got) != want {
		t.Fatalf("a decoded key:\n got %s\nwant %s", got, want)
	}
	rows = sqlJSON(t, dir, fmt.Sprintf(`SELECT count(DISTINCT key.order_id) AS ids, count(*) FILTER (WHERE key IS NULL AND key_raw IS NOT NULL) AS undecoded,
  list(key_error ORDER BY key_error) FILTER (WHERE key_error IS NOT NULL) AS why FROM %s`, QuoteIdentForTest(topic)))
	got, _ = json.Marshal(rows[0])
	if rows[0]["ids"] != 10.0 || rows[0]["undecoded"] != 3.0 || !strings.Contains(string(got), "schema 987655 is unknown to the registry") ||
		!strings.Contains(string(got), fmt.Sprintf("does not decode with schema %d", keyID)) || !strings.Contains(string(got), "no magic byte") {
		t.Fatalf("keys that did not decode: %s", got)
	}
	// A check on a key field: ten orders, each twice; the four keys without
	// an order id (three undecoded, one null) are no id, not copies.
	code, doc := checkJSON(t, "duplicates", "--dir", dir, "--topic", topic, "--id", "key.order_id")
	sum := doc["summary"].(map[string]any)
	if doc["status"] != "warn" || sum["duplicate_ids"] != 10.0 || sum["extra_copies"] != 10.0 || sum["records_without_id"] != 4.0 {
		t.Fatalf("check duplicates --id key.order_id: %d %v", code, doc)
	}
	// check values counts the keys that did not decode, and says why.
	code, doc = checkJSON(t, "values", "--dir", dir, "--topic", topic)
	msg := fmt.Sprint(doc["message"])
	if sum := doc["summary"].(map[string]any); doc["status"] != "warn" || sum["undecoded_keys"] != 3.0 || sum["unparsed_records"] != 0.0 ||
		!strings.Contains(msg, "3 keys do not decode with their writer schema") || !strings.Contains(msg, "schema 987655 is unknown to the registry") {
		t.Fatalf("check values: %d %v", code, doc)
	}
	// catalog verify names the key schema id the folder lacks: one the
	// registry never knew, a note and no damage (it was exit 9).
	code, out, _ = cli(t, "catalog", "verify", "--dir", dir)
	if code != 0 || !strings.Contains(out, "note: schema id 987655") || !strings.Contains(out, "was unknown to the schema registry") || strings.Contains(out, fmt.Sprintf("schema id %d ", keyID)) {
		t.Fatalf("verify: %d %q", code, out)
	}
}

// A Protobuf key (a nested message, chosen by the wire format's message
// indexes) on a topic whose values are plain JSON, and an Avro key that is
// a bare "long" (a scalar key reads as its type, not a STRUCT).
func TestProtobufAndScalarKeysThroughRegistry(t *testing.T) {
	url := registryURL(t)
	bs := brokers(t)
	conn := kafkaconn.Conn{Brokers: bs}
	ctx := context.Background()
	cl := srClient(t, url)
	stamp := time.Now().UnixNano() % 1e9
	topic := fmt.Sprintf("proto-keys-%d", stamp)
	longs := fmt.Sprintf("long-keys-%d", stamp)
	for _, tp := range []string{topic, longs} {
		if err := dump.CreateTopic(ctx, conn, tp, 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	const keyProto = `syntax = "proto3";
package shop;
message Keys {
  message Sku { string sku = 1; int64 warehouse = 2; }
}
`
	keyID := register(t, cl, topic+"-key", sr.Schema{Schema: keyProto, Type: sr.TypeProtobuf})
	comp := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: func(p string) (io.ReadCloser, error) {
			if p != "k.proto" {
				return nil, os.ErrNotExist
			}
			return io.NopCloser(strings.NewReader(keyProto)), nil
		}})}
	files, err := comp.Compile(ctx, "k.proto")
	if err != nil {
		t.Fatal(err)
	}
	skuMD := files[0].Messages().ByName("Keys").Messages().ByName("Sku")
	var serde sr.Serde
	serde.Register(keyID, &dynamicpb.Message{}, sr.Index(0, 0), sr.EncodeFn(func(v any) ([]byte, error) { return proto.Marshal(v.(*dynamicpb.Message)) }))
	longID := register(t, cl, longs+"-key", sr.Schema{Schema: `"long"`, Type: sr.TypeAvro})
	var longSerde sr.Serde
	longSerde.Register(longID, int64(0), avroEnc(t, `"long"`))
	var recs []dump.Record
	for i := 0; i < 6; i++ {
		m := dynamicpb.NewMessage(skuMD)
		m.Set(skuMD.Fields().ByName("sku"), protoreflect.ValueOfString(fmt.Sprintf("tea-%d", i%3)))
		m.Set(skuMD.Fields().ByName("warehouse"), protoreflect.ValueOfInt64(int64(7000000000+i)))
		k, err := serde.Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, dump.Record{Topic: topic, Key: k, Value: []byte(fmt.Sprintf(`{"qty":%d}`, i))})
		lk, err := longSerde.Encode(int64(1) << (40 + i))
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, dump.Record{Topic: longs, Key: lk, Value: []byte(fmt.Sprintf(`{"qty":%d}`, i))})
	}
	if err := dump.Produce(ctx, conn, recs); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code, out, errs := cli(t, "dump", "--brokers", strings.Join(bs, ","), "--topic", topic, "--topic", longs, "--dir", dir, "--schema-registry", url)
	if code != 0 || !strings.Contains(out, "12 keys decoded with their schema, 0 not decoded") {
		t.Fatalf("dump: %d %q %q", code, out, errs)
	}
	for _, s := range []string{topic + "-key", longs + "-key"} {
		if _, err := cl.DeleteSubject(ctx, s, sr.SoftDelete); err != nil {
			t.Fatal(err)
		}
	}
	rows := sqlJSON(t, dir, fmt.Sprintf(`SELECT key.sku AS sku, key.warehouse AS wh, typeof(key.warehouse) AS wht, value.qty AS qty, key_error AS why
FROM %s ORDER BY "offset" LIMIT 1`, QuoteIdentForTest(topic)))
	got, _ := json.Marshal(rows[0])
	if want := `{"qty":0,"sku":"tea-0","wh":7000000000,"wht":"BIGINT","why":null}`; string(got) != want {
		t.Fatalf("a protobuf key:\n got %s\nwant %s", got, want)
	}
	code, doc := checkJSON(t, "duplicates", "--dir", dir, "--topic", topic, "--id", "key.sku")
	if sum := doc["summary"].(map[string]any); doc["status"] != "warn" || sum["distinct_ids"] != 3.0 || sum["extra_copies"] != 3.0 {
		t.Fatalf("check duplicates --id key.sku: %d %v", code, doc)
	}
	code, doc = checkJSON(t, "values", "--dir", dir, "--topic", topic)
	if sum := doc["summary"].(map[string]any); doc["status"] != "ok" || sum["undecoded_keys"] != 0.0 ||
		!strings.Contains(fmt.Sprint(doc["message"]), "every key in the wire format decodes with its writer schema") {
		t.Fatalf("check values: %d %v", code, doc)
	}
	rows = sqlJSON(t, dir, fmt.Sprintf(`SELECT typeof(key) AS type, sum(key) AS total, count(key_error) AS errs FROM %s GROUP BY 1`, QuoteIdentForTest(longs)))
	if len(rows) != 1 || rows[0]["type"] != "BIGINT" || rows[0]["total"] != float64(int64(63)<<40) || rows[0]["errs"] != 0.0 {
		t.Fatalf("bare long keys: %v", rows)
	}
}
