package queries

import (
	"context"
	"fmt"
)

func init() {
	register(&Check{
		Name:    "keys",
		Summary: "records not on murmur2(key) % n, explained by crc32 or not, keys split over partitions",
		Order:   60,
		Options: []string{"limit"},
		run:     checkKeys,
	})
}

func checkKeys(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	n, err := e.partitionCount(ctx, o.Topic)
	if err != nil {
		return nil, err
	}
	s, err := e.run(ctx, "keys", d, n)
	if err != nil {
		return nil, err
	}
	x := s[0]
	records, mis, crcMis, unexplained := asInt(x.Get("records")), asInt(x.Get("misplaced_records")), asInt(x.Get("crc32_misplaced_records")), asInt(x.Get("unexplained_records"))
	split := asInt(x.Get("split_keys"))
	// The partitioner that placed the keys, as far as the placement tells:
	// one known hash explains every record, or both do between them
	// (mixed), or every key still sits on one partition that neither
	// explains (custom: an explicit map, the wind farm's design).
	part := "unknown"
	switch {
	case records == 0:
		part = "unknown"
	case mis == 0:
		part = "murmur2"
	case crcMis == 0:
		part = "crc32"
	case unexplained == 0:
		part = "mixed"
	case split == 0:
		part = "custom"
	}
	r := &Report{Summary: NewRow()}
	r.Summary.Set("keys", asInt(x.Get("keys"))).Set("misplaced_records", mis).Set("split_keys", asInt(x.Get("split_keys"))).
		Set("partitioner", part).Set("explained_by_crc32", asInt(x.Get("explained_by_crc32"))).
		Set("unexplained_records", unexplained).Set("null_keys", asInt(x.Get("null_keys")))
	ex, err := e.run(ctx, "keys_examples", d, n, o.Limit)
	if err != nil {
		return nil, err
	}
	for _, x := range ex {
		row := NewRow().Set("kind", "misplaced")
		for _, k := range x.Keys {
			row.Set(k, x.Get(k))
		}
		r.Rows = append(r.Rows, *row)
	}
	switch {
	case records == 0:
		r.Status, r.Message = StatusWarn, "no keyed records: placement cannot be judged"
	case mis == 0:
		r.Status, r.Message = StatusOK, fmt.Sprintf("every keyed record sits on murmur2(key) %% %d, the Java default partitioner", n)
	case crcMis == 0:
		r.Status, r.Message = StatusOK, fmt.Sprintf("every keyed record sits on crc32(key) %% %d: librdkafka's consistent partitioner (kcat, librdkafka clients), not the Java default", n)
	case split > 0 && part == "mixed":
		r.Status, r.Message = StatusFail, fmt.Sprintf("two partitioners write this topic: %s placed by murmur2 (Java) and %s by crc32 (librdkafka), and %s are split across partitions",
			plural(records-mis, "record", "records"), plural(asInt(x.Get("explained_by_crc32")), "record", "records"), plural(split, "key", "keys"))
	case split > 0:
		r.Status, r.Message = StatusFail, fmt.Sprintf("%s split across partitions; %s on a partition neither murmur2 nor crc32 explains",
			plural(split, "key is", "keys are"), plural(unexplained, "record is", "records are"))
	case part == "mixed":
		r.Status, r.Message = StatusWarn, fmt.Sprintf("two partitioners write this topic (%s by crc32, the rest by murmur2); no key is split yet, but a key written by both would be",
			plural(asInt(x.Get("explained_by_crc32")), "record", "records"))
	default:
		r.Status, r.Message = StatusOK, fmt.Sprintf("every key sits on one partition, placed by a custom partitioner: %s are on a partition neither murmur2 nor crc32 gives",
			plural(unexplained, "record", "records"))
	}
	return r, nil
}
