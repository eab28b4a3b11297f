package queries

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/topicsnap/topicsnap/consumeroffsets"
)

// The group coordinator's own log. When the folder holds a dump of
// __consumer_offsets (topicsnap dump --topic __consumer_offsets), three
// views decode it at query time, each record once per query by the scalar
// function kafka_offsets_record(key, value) (functions.go), which returns
// consumeroffsets.Decode's Record as JSON text, read here with from_json
// and a fixed structure (group_commit_log, the most read, by
// kafka_offsets_commit: the commits alone, as flat JSON):
//
//   - group_log: every record of the log: its kind, group, member, whether
//     it is a tombstone, and why it was not decoded (an unknown type or
//     version, bad bytes) with its bytes still in value_raw. Nothing lost.
//   - group_commit_log: every offset commit the log keeps; a tombstone (the
//     commit deleted: the group or the topic gone, or expired) is a row
//     with deleted true and no offset.
//   - group_generations: one row per member of every generation the log
//     keeps (a generation without members: one row, member NULL): classic
//     groups from their group metadata records, with each member's
//     assignment decoded; consumer-protocol (KIP-848) groups from each
//     member's current assignment record (member epoch as the generation,
//     topics by id), with the member's metadata as last written before it.
//
// Decoding at query time rather than in the dump keeps the dump's files the
// plain bytes of the topic (restorable, comparable with Kafka's own tools),
// needs no new columns in the catalog, and serves folders dumped before
// this existed. The views read "__consumer_offsets" (committed data
// records: a transactional commit that was aborted never took effect).
//
// group_commit_log also names the generation current at each commit and the
// member that held the partition: for a classic group, from the generation
// record before it; for a consumer-protocol group, from the current
// assignment records in force at the commit (matched by the topic id the
// commit names). check reset (reset_members_log.sql) and check members
// (members.sql) read it. Not yet: the Spark engine (these views are
// DuckDB's only).

// offsetsTopic is the internal topic the views read.
const offsetsTopic = "__consumer_offsets"

// logViews are the views over the log, in the order they are built.
var logViews = []string{"group_log", "group_generations", "group_commit_log", "group_log_coverage", "group_log_history"}

// LogViews lists the views an engine has when its folder holds a dump of
// __consumer_offsets.
func LogViews() []string { return append([]string(nil), logViews...) }

// offsetsRecordStructure is from_json's structure of the JSON text
// kafka_offsets_record returns (consumeroffsets.Record's JSON fields);
// TestOffsetsRecordStructure fails when the two drift.
var offsetsRecordStructure = func() string {
	tp := `[{"topic":"VARCHAR","topic_id":"VARCHAR","partitions":["INTEGER"]}]`
	s := `{"kind":"VARCHAR","type":"SMALLINT","value_version":"SMALLINT","group":"VARCHAR","member":"VARCHAR",` +
		`"topic":"VARCHAR","partition":"INTEGER","tombstone":"BOOLEAN",` +
		`"commit":{"offset":"BIGINT","leader_epoch":"INTEGER","metadata":"VARCHAR","commit_timestamp_ms":"BIGINT","expire_timestamp_ms":"BIGINT","topic_id":"VARCHAR"},` +
		`"classic":{"protocol_type":"VARCHAR","generation":"INTEGER","protocol":"VARCHAR","leader":"VARCHAR","current_state_timestamp_ms":"BIGINT",` +
		`"members":[{"member_id":"VARCHAR","instance_id":"VARCHAR","client_id":"VARCHAR","client_host":"VARCHAR","rebalance_timeout_ms":"INTEGER",` +
		`"session_timeout_ms":"INTEGER","assignment":TP,"assignment_error":"VARCHAR","raw_assignment":"VARCHAR"}]},` +
		`"group_epoch":{"epoch":"INTEGER","metadata_hash":"BIGINT","creation_time_ms":"BIGINT"},` +
		`"member_metadata":{"instance_id":"VARCHAR","rack_id":"VARCHAR","client_id":"VARCHAR","client_host":"VARCHAR","subscribed_topic_names":["VARCHAR"],` +
		`"subscribed_topic_regex":"VARCHAR","rebalance_timeout_ms":"INTEGER","server_assignor":"VARCHAR","classic_session_timeout_ms":"INTEGER"},` +
		`"target_epoch":{"assignment_epoch":"INTEGER","assignment_timestamp_ms":"BIGINT"},` +
		`"target":{"partitions":TP},` +
		`"current":{"member_epoch":"INTEGER","previous_member_epoch":"INTEGER","state":"TINYINT","assigned":TP,"pending_revocation":TP},` +
		`"error":"VARCHAR"}`
	return strings.ReplaceAll(s, "TP", tp)
}()

// offsetsRecordJSON is kafka_offsets_record's answer for one record: the
// Record as JSON (value nil: a tombstone).
func offsetsRecordJSON(key, value []byte) (string, error) {
	r, _ := consumeroffsets.Decode(key, value) // the error is in r.Error
	b, err := json.Marshal(&r)
	return string(b), err
}

// commitStructure is from_json's structure of kafka_offsets_commit's
// answer: flat, as the log is mostly commits and a flat structure parses
// several times faster than offsetsRecordStructure.
const commitStructure = `{"group":"VARCHAR","topic":"VARCHAR","partition":"INTEGER","tombstone":"BOOLEAN","offset":"BIGINT",` +
	`"leader_epoch":"INTEGER","metadata":"VARCHAR","commit_ms":"BIGINT","expire_ms":"BIGINT","topic_id":"VARCHAR"}`

// offsetsCommitJSON is kafka_offsets_commit's answer: an offset commit
// (or its tombstone) as flat JSON, written by hand (encoding/json's
// reflection costs more than the decoding); ok false for any other record,
// or one that does not decode (group_log says why).
func offsetsCommitJSON(key, value []byte) (string, bool) {
	if len(key) < 2 || key[0] != 0 || key[1] > 1 {
		return "", false
	}
	r, err := consumeroffsets.Decode(key, value)
	if err != nil || r.Kind != consumeroffsets.KindOffsetCommit {
		return "", false
	}
	b := make([]byte, 0, 192)
	b = append(b, `{"group":`...)
	b = appendJSONString(b, r.Group)
	b = append(b, `,"topic":`...)
	b = appendJSONString(b, r.Topic)
	b = append(b, `,"partition":`...)
	b = strconv.AppendInt(b, int64(r.Partition), 10)
	b = append(b, `,"tombstone":`...)
	b = strconv.AppendBool(b, r.Tombstone)
	if c := r.Commit; c != nil {
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, c.Offset, 10)
		b = append(b, `,"leader_epoch":`...)
		b = strconv.AppendInt(b, int64(c.LeaderEpoch), 10)
		b = append(b, `,"metadata":`...)
		b = appendJSONString(b, c.Metadata)
		b = append(b, `,"commit_ms":`...)
		b = strconv.AppendInt(b, c.CommitTimestampMs, 10)
		b = append(b, `,"expire_ms":`...)
		b = strconv.AppendInt(b, c.ExpireTimestampMs, 10)
		if c.TopicID != "" {
			b = append(b, `,"topic_id":`...)
			b = appendJSONString(b, c.TopicID)
		}
	}
	return string(append(b, '}')), true
}

// appendJSONString appends s as a JSON string: plain ASCII as is, anything
// else through encoding/json (invalid UTF-8 becomes U+FFFD, as there).
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// msTime turns epoch milliseconds into a TIMESTAMPTZ, NULL for Kafka's -1
// (and 0, which no real commit has).
func msTime(col string) string {
	return fmt.Sprintf(`CASE WHEN %[1]s > 0 THEN make_timestamptz(%[1]s * 1000) END`, col)
}

// logViewDDL returns the CREATE VIEW statements of the log views.
func logViewDDL() ([]string, error) {
	src := fmt.Sprintf(`(SELECT "partition" AS log_partition, "offset" AS log_offset, "timestamp" AS log_time, value_raw,
    from_json(kafka_offsets_record(key_raw, value_raw), %s) AS r FROM %s)`, quoteString(offsetsRecordStructure), quoteIdent(offsetsTopic))
	// srcOf is src over the records of the given key type only: a key's
	// first two bytes are its type, and BLOBs compare byte by byte, so
	// the others are passed over without being decoded.
	srcOf := func(typ int) string {
		return fmt.Sprintf(`(SELECT "partition" AS log_partition, "offset" AS log_offset, "timestamp" AS log_time, value_raw,
    from_json(kafka_offsets_record(key_raw, value_raw), %s) AS r FROM %s
    WHERE key_raw >= '\x00\x%02x'::BLOB AND key_raw < '\x00\x%02x'::BLOB)`, quoteString(offsetsRecordStructure), quoteIdent(offsetsTopic), typ, typ+1)
	}
	log := `SELECT log_partition, log_offset, log_time, r.kind, r.type AS record_type, r.value_version, r."group" AS group_id,
    r.member AS member_id, r.topic, CASE WHEN r.kind = 'offset_commit' THEN r."partition" END AS "partition", r.tombstone,
    r.error AS decode_error, value_raw
  FROM ` + src
	// A commit's generation is the group's last classic generation record
	// before it in the log (the coordinator refuses a commit from an older
	// generation, and writes both to the group's one partition of the
	// log); its holder is the member of that generation assigned the
	// commit's partition (one row a commit even where a damaged record
	// assigns a partition twice: the first member by id).
	// Consumer-protocol (KIP-848) groups: the holder is the member whose
	// current assignment record in force at the commit (its last before
	// the commit in the log, not a tombstone) holds the partition, matched
	// by the topic id the commit names (Kafka 4's commit value version 4;
	// an older commit without it: no holder, NULL), and the generation is
	// that member's epoch.
	// A partition claimed by two members' records at once (never in a
	// sound log) goes to the later claim: the ASOF join picks, per commit,
	// the last record before it that assigned the partition, and that
	// member held it if its next record (or tombstone) comes after the
	// commit.
	// The records in force come from group_generations' consumer rows
	// (with the member's client id, host and instance id); a member's
	// tombstones, which end its holding, from the log itself.
	current := fmt.Sprintf(`(SELECT DISTINCT group_id, member_id, log_partition, log_offset, member_epoch, a.topic_id, unnest(a.partitions) AS p,
        lead_offset, client_id, client_host, instance_id FROM (SELECT *, unnest(assignment) AS a FROM (
          SELECT *, lead(log_offset) OVER (PARTITION BY group_id, member_id, log_partition ORDER BY log_offset) AS lead_offset FROM (
            SELECT group_id, member_id, log_partition, log_offset, generation AS member_epoch, assignment, client_id, client_host, instance_id
            FROM group_generations WHERE group_protocol = 'consumer'
            UNION ALL
            SELECT r."group", r.member, log_partition, log_offset, NULL, NULL, NULL, NULL, NULL
            FROM %s WHERE value_raw IS NULL AND r.kind = 'consumer_group_current_member'))
        WHERE len(assignment) > 0))`, srcOf(8))
	held := `(k.lead_offset IS NULL OR c.log_offset < k.lead_offset)`
	commits := fmt.Sprintf(`SELECT c.j."group" AS group_id, c.j.topic, c.j."partition" AS "partition", c.j."offset" AS committed_offset,
    CASE WHEN c.j.leader_epoch >= 0 THEN c.j.leader_epoch END AS leader_epoch, c.j.metadata,
    `+msTime("c.j.commit_ms")+` AS commit_time, `+msTime("c.j.expire_ms")+` AS expire_time,
    c.j.tombstone AS deleted, c.j.topic_id,
    CASE WHEN h.member_id IS NULL AND k.member_id IS NOT NULL AND `+held+` THEN k.member_epoch ELSE g.generation END AS generation,
    coalesce(h.member_id, CASE WHEN `+held+` THEN k.member_id END) AS member_id,
    coalesce(h.client_id, CASE WHEN `+held+` THEN k.client_id END) AS client_id,
    coalesce(h.client_host, CASE WHEN `+held+` THEN k.client_host END) AS client_host,
    coalesce(h.instance_id, CASE WHEN `+held+` THEN k.instance_id END) AS instance_id,
    c.log_partition, c.log_offset, c.log_time
  FROM (SELECT "partition" AS log_partition, "offset" AS log_offset, "timestamp" AS log_time,
      from_json(kafka_offsets_commit(key_raw, value_raw), %s) AS j FROM %s
      WHERE key_raw < '\x00\x02'::BLOB) AS c
  ASOF LEFT JOIN (SELECT DISTINCT group_id, log_partition, log_offset, generation FROM group_generations WHERE group_protocol = 'classic') g
    ON c.j."group" = g.group_id AND c.log_partition = g.log_partition AND c.log_offset > g.log_offset
  LEFT JOIN (SELECT * FROM (SELECT group_id, log_partition, log_offset, member_id, client_id, client_host, instance_id, a.topic, unnest(a.partitions) AS p
        FROM (SELECT *, unnest(assignment) AS a FROM group_generations WHERE group_protocol = 'classic' AND len(assignment) > 0))
      QUALIFY row_number() OVER (PARTITION BY group_id, log_partition, log_offset, topic, p ORDER BY member_id) = 1) h
    ON h.group_id = g.group_id AND h.log_partition = g.log_partition AND h.log_offset = g.log_offset AND h.topic = c.j.topic AND h.p = c.j."partition"
  ASOF LEFT JOIN %s k
    ON k.group_id = c.j."group" AND k.log_partition = c.log_partition AND k.topic_id = c.j.topic_id AND k.p = c.j."partition" AND c.log_offset > k.log_offset
  WHERE c.j IS NOT NULL`, quoteString(commitStructure), quoteIdent(offsetsTopic), current)
	// Classic generations: a row per member, or one for a generation
	// without members.
	classic := `SELECT r."group" AS group_id, 'classic' AS group_protocol, r.classic.generation, r.classic.protocol_type,
    r.classic.protocol AS protocol_name, r.classic.leader, ` + msTime("r.classic.current_state_timestamp_ms") + ` AS state_time,
    m.member_id, m.instance_id, m.client_id, m.client_host, m.session_timeout_ms, m.rebalance_timeout_ms,
    m.assignment, m.assignment_error, log_partition, log_offset, log_time
  FROM (SELECT *, unnest(CASE WHEN len(r.classic.members) = 0 THEN [NULL] ELSE r.classic.members END) AS m
        FROM ` + srcOf(2) + ` WHERE r.kind = 'group_metadata' AND r.error IS NULL AND NOT r.tombstone)`
	// Consumer-protocol generations: each member's current assignment,
	// with its metadata as last written before it.
	consumer := `SELECT c.group_id, 'consumer' AS group_protocol, c.member_epoch AS generation, 'consumer' AS protocol_type,
    md.server_assignor AS protocol_name, NULL::VARCHAR AS leader, c.log_time AS state_time,
    c.member_id, md.instance_id, md.client_id, md.client_host, md.classic_session_timeout_ms AS session_timeout_ms,
    md.rebalance_timeout_ms, c.assigned AS assignment, NULL::VARCHAR AS assignment_error, c.log_partition, c.log_offset, c.log_time
  FROM (SELECT r."group" AS group_id, r.member AS member_id, r."current".member_epoch, r."current".assigned, log_partition, log_offset, log_time
        FROM ` + srcOf(8) + ` WHERE r.kind = 'consumer_group_current_member' AND r.error IS NULL AND NOT r.tombstone) c
  ASOF LEFT JOIN (SELECT r."group" AS group_id, r.member AS member_id, log_partition, log_offset, r.member_metadata.instance_id,
          r.member_metadata.client_id, r.member_metadata.client_host, r.member_metadata.classic_session_timeout_ms,
          r.member_metadata.rebalance_timeout_ms, r.member_metadata.server_assignor
        FROM ` + srcOf(5) + ` WHERE r.kind = 'consumer_group_member_metadata' AND r.error IS NULL AND NOT r.tombstone) md
    ON c.group_id = md.group_id AND c.member_id = md.member_id AND c.log_partition = md.log_partition AND c.log_offset >= md.log_offset`
	coverage, err := render("group_log_coverage", sqlData{})
	if err != nil {
		return nil, err
	}
	history, err := render("group_log_history", sqlData{})
	if err != nil {
		return nil, err
	}
	return []string{
		fmt.Sprintf("CREATE OR REPLACE VIEW group_log AS %s", log),
		fmt.Sprintf("CREATE OR REPLACE VIEW group_generations AS %s\nUNION ALL BY NAME\n%s", classic, consumer),
		fmt.Sprintf("CREATE OR REPLACE VIEW group_commit_log AS %s", commits),
		coverage,
		history,
	}, nil
}

// HasCommitLog reports whether the folder holds a dump of
// __consumer_offsets, and so the log views.
func (e *Engine) HasCommitLog() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.hasOffsetsLogLocked()
}

// FolderWideNames are the names through which a query reads the whole
// folder rather than one topic: the catalog tables, the group log views
// and the table macros. An engine limited to some topics (Options.Topics)
// answers such a query with fewer rows, not an error, so a caller that
// limits an engine by the topics a query names must not limit it when the
// query names one of these.
func FolderWideNames() []string {
	return slices.Concat(metadataTables, logViews, []string{"topic_state", "topic_state_unknown", "lag_at"})
}
