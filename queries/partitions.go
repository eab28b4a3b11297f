package queries

import "context"

// PartitionRecords is one partition's data records as `topicsnap ls` shows
// them: committed data records apart from transaction markers and aborted
// records, and the data records' time range (-1 when it has none).
type PartitionRecords struct {
	Partition                 int32
	Records, Markers, Aborted int64
	// Open are the data records (counted in Records) of a transaction no
	// marker in the folder decides yet: Kafka may still abort them.
	Open            int64
	FirstMs, LastMs int64
}

// PartitionRecords reads, per partition of topic, its data records,
// markers and aborted records (sql/ls_partitions.sql): what the manifests
// cannot say for files holding markers or open transactions.
func (e *Engine) PartitionRecords(ctx context.Context, topic string) ([]PartitionRecords, error) {
	rows, err := e.run(ctx, "ls_partitions", views(topic))
	if err != nil {
		return nil, err
	}
	out := make([]PartitionRecords, 0, len(rows))
	for _, r := range rows {
		p := PartitionRecords{Partition: int32(asInt(r.Get("partition"))), Records: asInt(r.Get("records")),
			Markers: asInt(r.Get("markers")), Aborted: asInt(r.Get("aborted")), Open: asInt(r.Get("open")), FirstMs: -1, LastMs: -1}
		if v := r.Get("first_ms"); v != nil {
			p.FirstMs, p.LastMs = asInt(v), asInt(r.Get("last_ms"))
		}
		out = append(out, p)
	}
	return out, nil
}
