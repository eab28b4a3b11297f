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
//     with deleted true and no offset; holder_reason says why a commit
//     has no member.
//   - group_generations: one row per member of every generation the log
//     keeps (a generation without members: one row, member NULL): classic
//     groups from their group metadata records, with each member's
//     assignment decoded; consumer-protocol (KIP-848) groups from each
//     member's current assignment record (member epoch as the generation,
//     topics by id, and the partitions pending revocation, which the
//     member still holds), with the member's metadata as last written
//     before it; Kafka 4's share groups (KIP-932) and Kafka Streams groups
//     (KIP-1071) likewise, from their own current assignment records (a
//     streams member's active tasks mapped to the partitions they read by
//     the group's topology record in force).
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
// assignment records in force at the commit (matched by topic id: the
// commit's, else the one id the cuts or other commits give its topic). check reset (reset_members_log.sql) and check members
// (members.sql) read it. Not yet: the Spark engine (these views are
// DuckDB's only).

// Bounds on the mapping of a streams member's tasks to the partitions
// they read (group_generations): the pairs of its tasks and the
// topology's subtopologies compared, and the topic partitions made.
const (
	maxTaskPairs  = 10_000_000
	maxTaskTopics = 1_000_000
)

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
		`"regex":"VARCHAR","share_state":{"initializing":TP,"initialized":TP,"deleting":TP},` +
		`"regex_topics":{"topics":["VARCHAR"],"version":"BIGINT","timestamp_ms":"BIGINT"},` +
		`"streams_epoch":{"epoch":"INTEGER","metadata_hash":"BIGINT","validated_topology_epoch":"INTEGER","last_assignment_configs":KV,` +
		`"stored_description_topology_epoch":"INTEGER","failed_description_topology_epoch":"INTEGER"},` +
		`"streams_member":{"instance_id":"VARCHAR","rack_id":"VARCHAR","client_id":"VARCHAR","client_host":"VARCHAR","rebalance_timeout_ms":"INTEGER",` +
		`"topology_epoch":"INTEGER","process_id":"VARCHAR","user_endpoint":"VARCHAR","client_tags":KV},` +
		`"streams_target":{"active":TK,"standby":TK,"warmup":TK},` +
		`"streams_current":{"member_epoch":"INTEGER","previous_member_epoch":"INTEGER","state":"TINYINT","active":TK,"standby":TK,"warmup":TK,` +
		`"active_pending_revocation":TK,"standby_pending_revocation":TK,"warmup_pending_revocation":TK},` +
		`"topology":{"epoch":"INTEGER","subtopologies":[{"subtopology_id":"VARCHAR","source_topics":["VARCHAR"],"source_topic_regex":["VARCHAR"],` +
		`"state_changelog_topics":["VARCHAR"],"repartition_sink_topics":["VARCHAR"],"repartition_source_topics":["VARCHAR"]}]},` +
		`"error":"VARCHAR"}`
	return strings.NewReplacer("TP", tp, "TK", `[{"subtopology_id":"VARCHAR","partitions":["INTEGER"]}]`,
		"KV", `[{"key":"VARCHAR","value":"VARCHAR"}]`).Replace(s)
}()

// recordStructure is offsetsRecordStructure with only the record's head
// (kind, type, group, member, topic, partition, tombstone, error) and the
// named value fields: from_json's cost grows with its structure, and each
// view reads its own record types' values alone (group_log: none), so a
// type's values added for one view cost the others nothing.
func recordStructure(values ...string) string {
	var full map[string]json.RawMessage
	if err := json.Unmarshal([]byte(offsetsRecordStructure), &full); err != nil {
		panic(fmt.Sprintf("offsetsRecordStructure: %v", err))
	}
	var b strings.Builder
	b.WriteString("{")
	for i, k := range append([]string{"kind", "type", "value_version", "group", "member", "topic", "partition", "tombstone", "error"}, values...) {
		v, ok := full[k]
		if !ok {
			panic(fmt.Sprintf("offsetsRecordStructure has no %q", k))
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q:%s", k, v)
	}
	b.WriteString("}")
	return b.String()
}

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
    from_json(kafka_offsets_record(key_raw, value_raw), %s) AS r FROM %s)`, quoteString(recordStructure()), quoteIdent(offsetsTopic))
	// srcOf is src over the records of the given key type only: a key's
	// first two bytes are its type, and BLOBs compare byte by byte, so
	// the others are passed over without being decoded.
	srcOf := func(typ int, values ...string) string {
		return fmt.Sprintf(`(SELECT "partition" AS log_partition, "offset" AS log_offset, "timestamp" AS log_time, value_raw,
    from_json(kafka_offsets_record(key_raw, value_raw), %s) AS r FROM %s
    WHERE key_raw >= '\x00\x%02x'::BLOB AND key_raw < '\x00\x%02x'::BLOB)`, quoteString(recordStructure(values...)), quoteIdent(offsetsTopic), typ, typ+1)
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
	// the commit in the log, not a tombstone) holds the partition,
	// assigned or pending revocation (a member keeps a partition it is
	// asked to give up until it says it has, and commits it meanwhile),
	// matched by topic id, and the generation is that member's epoch.
	// The topic id is the commit's own (Kafka 4's commit value version 4)
	// or, for a commit without one, the one id the folder knows for the
	// commit's topic name: from the cuts (snapshots.topic_id) or from the
	// commits that carry both. A name with no known id, or with two (the
	// topic made again), is not guessed: the commit has no holder and
	// holder_reason says why, as it does for every commit without one.
	// Streams groups (KIP-1071) the same way, matched by topic name: a
	// member holds the partitions its active tasks read (assigned or
	// pending revocation), by the topology in force (group_generations).
	// A partition claimed by two members' records at once (never in a
	// sound log) goes to the later claim: the ASOF join picks, per commit,
	// the last record before it that assigned the partition, and that
	// member held it if its next record (or tombstone) comes after the
	// commit.
	// The records in force come from group_generations' consumer rows
	// (with the member's client id, host and instance id); a member's
	// tombstones, which end its holding, from the log itself.
	// Speed: an ASOF join sorts every row of its left side, even against
	// an empty right side, so only the commits of groups with classic
	// generation records go through the classic one, and only those of
	// groups with consumer assignment records through the consumer one
	// (the decoded commits, and the commits with their classic holder, are
	// materialized once for both branches).
	// Streams groups (KIP-1071) likewise, from their current assignment
	// records (the partitions their active tasks read, named by topic).
	currentOf := func(protocol string, typ int, kind string) string {
		return fmt.Sprintf(`(SELECT DISTINCT group_id, member_id, log_partition, log_offset, member_epoch, a.topic, a.topic_id, unnest(a.partitions) AS p,
        lead_offset, client_id, client_host, instance_id FROM (SELECT *, unnest(held) AS a FROM (
          SELECT *, lead(log_offset) OVER (PARTITION BY group_id, member_id, log_partition ORDER BY log_offset) AS lead_offset FROM (
            SELECT group_id, member_id, log_partition, log_offset, generation AS member_epoch,
              list_concat(assignment, coalesce(pending_revocation, [])) AS held, client_id, client_host, instance_id
            FROM group_generations WHERE group_protocol = '%s'
            UNION ALL
            SELECT r."group", r.member, log_partition, log_offset, NULL, NULL, NULL, NULL, NULL
            FROM %s WHERE value_raw IS NULL AND r.kind = '%s'))
        WHERE len(held) > 0))`, protocol, srcOf(typ), kind)
	}
	current := currentOf("consumer", 8, "consumer_group_current_member")
	currentStreams := currentOf("streams", 22, "streams_group_current_member")
	held := `(k.lead_offset IS NULL OR b.log_offset < k.lead_offset)`
	holder := `coalesce(b.h_member_id, CASE WHEN ` + held + ` THEN k.member_id END)`
	project := `SELECT b.group_id, b.topic, b."partition", b.committed_offset,
    CASE WHEN b.leader_epoch >= 0 THEN b.leader_epoch END AS leader_epoch, b.metadata,
    ` + msTime("b.commit_ms") + ` AS commit_time, ` + msTime("b.expire_ms") + ` AS expire_time,
    b.deleted, b.topic_id,
    CASE WHEN b.h_member_id IS NULL AND k.member_id IS NOT NULL AND ` + held + ` THEN k.member_epoch ELSE b.generation END AS generation,
    ` + holder + ` AS member_id,
    coalesce(b.h_client_id, CASE WHEN ` + held + ` THEN k.client_id END) AS client_id,
    coalesce(b.h_client_host, CASE WHEN ` + held + ` THEN k.client_host END) AS client_host,
    coalesce(b.h_instance_id, CASE WHEN ` + held + ` THEN k.instance_id END) AS instance_id,
    CASE WHEN ` + holder + ` IS NOT NULL THEN NULL
      WHEN b.deleted THEN 'a tombstone: the commit was deleted (the group or the topic gone, or the commit expired)'
      WHEN b.consumer AND b.holder_topic_id IS NULL AND b.topic_ids > 1 THEN 'the commit names no topic id and topic ' || b.topic || ' had '
        || b.topic_ids || ' ids (made again): the group''s consumer-protocol assignments name topics by id, so which one is not guessed'
      WHEN b.consumer AND b.holder_topic_id IS NULL THEN 'the commit names no topic id and no cut or commit in the folder gives one for topic '
        || b.topic || ': the group''s consumer-protocol assignments name topics by id only (a cut of the topic records its id)'
      WHEN b.consumer THEN 'no member''s current assignment in the log held the partition at the commit (its records compacted away, or before the dump)'
      WHEN b.streams THEN 'no streams member''s current assignment in the log had an active task reading the partition at the commit (its records compacted away or before the dump, or its tasks not mapped to partitions: group_generations.assignment_error says why)'
      WHEN b.generation IS NOT NULL THEN 'no member of generation ' || b.generation || ' was assigned the partition'
      ELSE 'the log keeps no generation or assignment of the group before the commit (compacted away, or before the dump)'
    END AS holder_reason,
    b.log_partition, b.log_offset, b.log_time`
	commits := fmt.Sprintf(`WITH c AS MATERIALIZED (
    SELECT j."group" AS group_id, j.topic, j."partition" AS "partition", j."offset" AS committed_offset, j.leader_epoch, j.metadata,
      j.commit_ms, j.expire_ms, j.tombstone AS deleted, j.topic_id, log_partition, log_offset, log_time
    FROM (SELECT "partition" AS log_partition, "offset" AS log_offset, "timestamp" AS log_time,
        from_json(kafka_offsets_commit(key_raw, value_raw), %s) AS j FROM %s
        WHERE key_raw < '\x00\x02'::BLOB)
    WHERE j IS NOT NULL
  ), k AS MATERIALIZED %s, ks AS MATERIALIZED %s,
  cg AS (SELECT DISTINCT group_id FROM group_generations WHERE group_protocol = 'consumer'),
  sg AS (SELECT DISTINCT group_id FROM group_generations WHERE group_protocol = 'streams'),
  ids AS (
    SELECT topic, min(topic_id) AS topic_id, count(DISTINCT topic_id) AS topic_ids FROM (
      SELECT topic, topic_id FROM snapshots WHERE topic_id IS NOT NULL
      UNION SELECT DISTINCT topic, topic_id FROM c WHERE topic_id IS NOT NULL AND topic IS NOT NULL)
    GROUP BY topic
  ), clg AS (SELECT DISTINCT group_id FROM group_generations WHERE group_protocol = 'classic'),
  b AS MATERIALIZED (
    SELECT c.*, NULL::INTEGER AS generation, NULL::VARCHAR AS h_member_id, NULL::VARCHAR AS h_client_id, NULL::VARCHAR AS h_client_host,
      NULL::VARCHAR AS h_instance_id
    FROM c WHERE group_id NOT IN (SELECT group_id FROM clg)
    UNION ALL
    SELECT c.*, g.generation, h.member_id AS h_member_id, h.client_id AS h_client_id, h.client_host AS h_client_host, h.instance_id AS h_instance_id
    FROM (SELECT * FROM c WHERE group_id IN (SELECT group_id FROM clg)) c
    ASOF LEFT JOIN (SELECT DISTINCT group_id, log_partition, log_offset, generation FROM group_generations WHERE group_protocol = 'classic') g
      ON c.group_id = g.group_id AND c.log_partition = g.log_partition AND c.log_offset > g.log_offset
    LEFT JOIN (SELECT * FROM (SELECT group_id, log_partition, log_offset, member_id, client_id, client_host, instance_id, a.topic, unnest(a.partitions) AS p
          FROM (SELECT *, unnest(assignment) AS a FROM group_generations WHERE group_protocol = 'classic' AND len(assignment) > 0))
        QUALIFY row_number() OVER (PARTITION BY group_id, log_partition, log_offset, topic, p ORDER BY member_id) = 1) h
      ON h.group_id = g.group_id AND h.log_partition = g.log_partition AND h.log_offset = g.log_offset AND h.topic = c.topic AND h.p = c."partition"
  )
%s
  FROM (SELECT *, false AS consumer, false AS streams, NULL::VARCHAR AS holder_topic_id, NULL::BIGINT AS topic_ids
      FROM b WHERE group_id NOT IN (SELECT group_id FROM cg) AND group_id NOT IN (SELECT group_id FROM sg)) b
  LEFT JOIN (SELECT NULL::VARCHAR AS member_id, NULL::INTEGER AS member_epoch, NULL::BIGINT AS lead_offset, NULL::VARCHAR AS client_id,
      NULL::VARCHAR AS client_host, NULL::VARCHAR AS instance_id) k ON true
UNION ALL
%s
  FROM (SELECT b.*, true AS consumer, false AS streams, coalesce(b.topic_id, CASE WHEN i.topic_ids = 1 THEN i.topic_id END) AS holder_topic_id, i.topic_ids
      FROM b LEFT JOIN ids i ON i.topic = b.topic WHERE b.group_id IN (SELECT group_id FROM cg)) b
  ASOF LEFT JOIN k
    ON k.group_id = b.group_id AND k.log_partition = b.log_partition AND k.topic_id = b.holder_topic_id AND k.p = b."partition" AND b.log_offset > k.log_offset
UNION ALL
%s
  FROM (SELECT b.*, false AS consumer, true AS streams, NULL::VARCHAR AS holder_topic_id, NULL::BIGINT AS topic_ids
      FROM b WHERE b.group_id IN (SELECT group_id FROM sg)) b
  ASOF LEFT JOIN ks k
    ON k.group_id = b.group_id AND k.log_partition = b.log_partition AND k.topic = b.topic AND k.p = b."partition" AND b.log_offset > k.log_offset`,
		quoteString(commitStructure), quoteIdent(offsetsTopic), current, currentStreams, project, project, project)
	// Classic generations: a row per member, or one for a generation
	// without members.
	classic := `SELECT r."group" AS group_id, 'classic' AS group_protocol, r.classic.generation, r.classic.protocol_type,
    r.classic.protocol AS protocol_name, r.classic.leader, ` + msTime("r.classic.current_state_timestamp_ms") + ` AS state_time,
    m.member_id, m.instance_id, m.client_id, m.client_host, m.session_timeout_ms, m.rebalance_timeout_ms,
    m.assignment, m.assignment_error, log_partition, log_offset, log_time
  FROM (SELECT *, unnest(CASE WHEN len(r.classic.members) = 0 THEN [NULL] ELSE r.classic.members END) AS m
        FROM ` + srcOf(2, "classic") + ` WHERE r.kind = 'group_metadata' AND r.error IS NULL AND NOT r.tombstone)`
	// Consumer-protocol generations: each member's current assignment,
	// with its metadata as last written before it.
	consumer := `SELECT c.group_id, 'consumer' AS group_protocol, c.member_epoch AS generation, 'consumer' AS protocol_type,
    md.server_assignor AS protocol_name, NULL::VARCHAR AS leader, c.log_time AS state_time,
    c.member_id, md.instance_id, md.client_id, md.client_host, md.classic_session_timeout_ms AS session_timeout_ms,
    md.rebalance_timeout_ms, c.assigned AS assignment, c.pending_revocation, NULL::VARCHAR AS assignment_error, c.log_partition, c.log_offset, c.log_time
  FROM (SELECT r."group" AS group_id, r.member AS member_id, r."current".member_epoch, r."current".assigned, r."current".pending_revocation,
          log_partition, log_offset, log_time
        FROM ` + srcOf(8, "current") + ` WHERE r.kind = 'consumer_group_current_member' AND r.error IS NULL AND NOT r.tombstone) c
  ASOF LEFT JOIN (SELECT r."group" AS group_id, r.member AS member_id, log_partition, log_offset, r.member_metadata.instance_id,
          r.member_metadata.client_id, r.member_metadata.client_host, r.member_metadata.classic_session_timeout_ms,
          r.member_metadata.rebalance_timeout_ms, r.member_metadata.server_assignor
        FROM ` + srcOf(5, "member_metadata") + ` WHERE r.kind = 'consumer_group_member_metadata' AND r.error IS NULL AND NOT r.tombstone) md
    ON c.group_id = md.group_id AND c.member_id = md.member_id AND c.log_partition = md.log_partition AND c.log_offset >= md.log_offset`
	// Share groups (KIP-932): as the consumer protocol's, each member's
	// current assignment (topics by id; a share partition is consumed by
	// several members at once and never pending revocation), with the
	// member's metadata as last written before it (no instance id, no
	// timeouts: a share member has neither).
	share := `SELECT c.group_id, 'share' AS group_protocol, c.member_epoch AS generation, 'share' AS protocol_type,
    c.log_time AS state_time, c.member_id, md.client_id, md.client_host, c.assigned AS assignment, c.log_partition, c.log_offset, c.log_time
  FROM (SELECT r."group" AS group_id, r.member AS member_id, r."current".member_epoch, r."current".assigned, log_partition, log_offset, log_time
        FROM ` + srcOf(14, "current") + ` WHERE r.kind = 'share_group_current_member' AND r.error IS NULL AND NOT r.tombstone) c
  ASOF LEFT JOIN (SELECT r."group" AS group_id, r.member AS member_id, log_partition, log_offset, r.member_metadata.client_id,
          r.member_metadata.client_host
        FROM ` + srcOf(10, "member_metadata") + ` WHERE r.kind = 'share_group_member_metadata' AND r.error IS NULL AND NOT r.tombstone) md
    ON c.group_id = md.group_id AND c.member_id = md.member_id AND c.log_partition = md.log_partition AND c.log_offset >= md.log_offset`
	// Streams groups (KIP-1071): each member's current assignment, whose
	// tasks (a subtopology and its partitions) are kept as they are
	// (active_tasks, standby_tasks, warmup_tasks, and the active tasks
	// pending revocation); assignment is the partitions the active tasks
	// read, by the group's topology record in force (its last before the
	// assignment in the log): partition p of each source and repartition
	// source topic of the task's subtopology, by name. Without a topology
	// record before it, assignment is NULL (not known), and a subtopology
	// that reads topics by a regular expression names no topic (the
	// topics it matched are not in the log). Standby and warmup tasks
	// read the stores' changelogs, not the source topics.
	// Each task is looked up among the subtopologies: past
	// maxTaskPairs pairs (a hostile record of 50,000 tasks and 50,000
	// subtopologies, 1.3 MB, took 16.5 s), or past maxTaskTopics topics
	// mapped, the mapping is not made: assignment is NULL and
	// assignment_error says why (the tasks are kept).
	tooMany := func(tasks string) string {
		return fmt.Sprintf(`(len(%[1]s)::BIGINT * len(tp.subtopologies) > %[2]d OR len(%[1]s)::BIGINT * coalesce(list_max(list_transform(tp.subtopologies,
        s -> len(s.source_topics) + len(s.repartition_source_topics))), 0) > %[3]d)`, tasks, maxTaskPairs, maxTaskTopics)
	}
	tasksToTopics := func(tasks string) string {
		return `CASE WHEN tp.subtopologies IS NOT NULL AND NOT ` + tooMany(tasks) + ` THEN flatten(list_transform(` + tasks + `, t -> flatten(list_transform(
        list_filter(tp.subtopologies, s -> s.subtopology_id = t.subtopology_id),
        s -> list_transform(list_concat(s.source_topics, s.repartition_source_topics),
          n -> {'topic': n, 'topic_id': NULL::VARCHAR, 'partitions': t.partitions}))))) END`
	}
	// The topology in force is the group's last topology record before
	// the assignment, whatever it is: a tombstone (the group deleted) or
	// a record that did not decode leaves the mapping unknown, never
	// made through an older topology.
	tasksError := fmt.Sprintf(`CASE WHEN tp.log_offset IS NULL THEN 'no topology record of the group before this assignment in the log: the partitions its tasks read are not known'
      WHEN tp.deleted THEN 'the group''s last topology record before this assignment is a tombstone (the group was deleted): the partitions its tasks read are not known'
      WHEN tp.subtopologies IS NULL THEN 'the group''s last topology record before this assignment did not decode (' || coalesce(tp.error, '?') || '): the partitions its tasks read are not known'
      WHEN %s OR %s THEN len(c.active) || ' active tasks over ' || len(tp.subtopologies) || ' subtopologies: past the %d task-subtopology pairs or %d topic partitions mapped, the partitions its tasks read are not mapped (active_tasks has them)' END`,
		tooMany("c.active"), tooMany("c.active_pending_revocation"), maxTaskPairs, maxTaskTopics)
	streams := `SELECT c.group_id, 'streams' AS group_protocol, c.member_epoch AS generation, 'streams' AS protocol_type,
    c.log_time AS state_time, c.member_id, md.instance_id, md.client_id, md.client_host, md.rebalance_timeout_ms,
    ` + tasksToTopics("c.active") + ` AS assignment, ` + tasksToTopics("c.active_pending_revocation") + ` AS pending_revocation,
    ` + tasksError + ` AS assignment_error,
    c.active AS active_tasks, c.standby AS standby_tasks, c.warmup AS warmup_tasks, c.active_pending_revocation AS active_tasks_pending_revocation,
    md.process_id, tp.epoch AS topology_epoch, c.log_partition, c.log_offset, c.log_time
  FROM (SELECT r."group" AS group_id, r.member AS member_id, r.streams_current.member_epoch, r.streams_current.active, r.streams_current.standby,
          r.streams_current.warmup, r.streams_current.active_pending_revocation, log_partition, log_offset, log_time
        FROM ` + srcOf(22, "streams_current") + ` WHERE r.kind = 'streams_group_current_member' AND r.error IS NULL AND NOT r.tombstone) c
  ASOF LEFT JOIN (SELECT r."group" AS group_id, r.member AS member_id, log_partition, log_offset, r.streams_member.instance_id,
          r.streams_member.client_id, r.streams_member.client_host, r.streams_member.rebalance_timeout_ms, r.streams_member.process_id
        FROM ` + srcOf(19, "streams_member") + ` WHERE r.kind = 'streams_group_member_metadata' AND r.error IS NULL AND NOT r.tombstone) md
    ON c.group_id = md.group_id AND c.member_id = md.member_id AND c.log_partition = md.log_partition AND c.log_offset >= md.log_offset
  ASOF LEFT JOIN (SELECT r."group" AS group_id, log_partition, log_offset, r.topology.epoch, r.topology.subtopologies,
          r.tombstone AS deleted, r.error
        FROM ` + srcOf(23, "topology") + ` WHERE r.kind = 'streams_group_topology') tp
    ON c.group_id = tp.group_id AND c.log_partition = tp.log_partition AND c.log_offset > tp.log_offset`
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
		fmt.Sprintf("CREATE OR REPLACE VIEW group_generations AS %s\nUNION ALL BY NAME\n%s\nUNION ALL BY NAME\n%s\nUNION ALL BY NAME\n%s", classic, consumer, share, streams),
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
