-- name: durability
-- summary: per partition, what the cuts and the records say about how safely
--          it was kept: the fewest replicas any cut saw, the cuts at which
--          the ISR was smaller than min.insync.replicas (that cut's value),
--          the leader epochs seen (cuts and records), and the committed data
--          records written without idempotence (producer id -1 or NULL).
--          The topic's settings come as the cuts recorded them: the weakest
--          min.insync.replicas and whether any cut said
--          unclean.leader.election.enable true, NULL where no cut recorded
--          the setting. A cut whose replicas are empty could not see them and
--          judges nothing; one whose ISR is empty had no replica in sync.
--          topic_cuts: the cuts that recorded the topic.
--          same_cut_leader: the one broker every cut with a leader saw
--          leading, when those cuts saw more than one leader epoch (elections
--          that gave the leadership back to it, as after its restart), with
--          the first and last epoch those cuts saw; NULL otherwise.
--          isr_judged_cuts: the partition's cuts that had a min.insync.replicas
--          to judge the ISR by.
--          The partitions are the topic's today: 0..$2-1, those with
--          current files and those today's cuts saw (an old topic's
--          partition that the topic made again lacks is none of them).
-- params: T the topic view; $1 the topic name; $2 today's partition count
--         (Engine.partitionCount).
WITH parts AS (
  SELECT DISTINCT "partition" FROM files WHERE topic = $1 AND NOT superseded
  UNION SELECT DISTINCT "partition" FROM partitions WHERE topic = $1 AND "partition" < $2
  UNION SELECT unnest(range(0, $2))::INTEGER
), cfg AS (
  SELECT snapshot_id,
         min(CASE WHEN name = 'min.insync.replicas' THEN TRY_CAST(value AS INTEGER) END) AS min_isr,
         max(CASE WHEN name = 'unclean.leader.election.enable' THEN lower(trim(value)) END) AS unclean
  FROM topic_configs WHERE topic = $1 GROUP BY snapshot_id
), settings AS (
  SELECT min(min_isr) AS min_isr,
         bool_or(unclean = 'true') AS unclean
  FROM cfg
), cuts AS (
  SELECT p."partition", p.snapshot_id, len(p.replicas) AS rf, coalesce(len(p.isr), 0) AS isr, p.leader, p.leader_epoch, c.min_isr
  FROM partitions p LEFT JOIN cfg c USING (snapshot_id)
  WHERE p.topic = $1 AND len(p.replicas) > 0
), by_cut AS (
  SELECT "partition", count(*) AS cuts, min(rf) AS rf,
         sum(CASE WHEN min_isr IS NOT NULL THEN 1 ELSE 0 END) AS judged_cuts,
         sum(CASE WHEN isr < min_isr THEN 1 ELSE 0 END) AS below
  FROM cuts GROUP BY 1
), by_cut_leader AS (
  SELECT "partition", count(DISTINCT leader) AS leaders, count(DISTINCT leader_epoch) AS epochs,
         min(leader) AS leader, min(leader_epoch) AS first_epoch, max(leader_epoch) AS last_epoch
  FROM cuts WHERE leader >= 0 AND leader_epoch >= 0 GROUP BY 1
), rec AS (
  SELECT "partition", leader_epoch, count(*) AS records,
         sum(CASE WHEN producer_id IS NULL OR producer_id < 0 THEN 1 ELSE 0 END) AS non_idem
  FROM {{.T}} GROUP BY 1, 2
), epochs AS (
  SELECT "partition", leader_epoch FROM cuts WHERE leader_epoch >= 0
  UNION SELECT "partition", leader_epoch FROM rec WHERE leader_epoch >= 0
), by_epoch AS (
  SELECT "partition", count(*) AS epochs, min(leader_epoch) AS first_epoch, max(leader_epoch) AS last_epoch
  FROM epochs GROUP BY 1
), by_rec AS (
  SELECT "partition", sum(records) AS records, sum(non_idem) AS non_idem FROM rec GROUP BY 1
)
SELECT p."partition",
       (SELECT count(*) FROM snapshots WHERE topic = $1) AS topic_cuts,
       coalesce(b.cuts, 0) AS cuts,
       b.rf AS replication_factor,
       s.min_isr AS min_insync_replicas,
       s.unclean AS unclean_leader_election,
       CASE WHEN b.judged_cuts > 0 THEN b.below END AS isr_below_min_cuts,
       coalesce(b.judged_cuts, 0) AS isr_judged_cuts,
       e.epochs AS leader_epochs,
       e.first_epoch AS first_leader_epoch,
       e.last_epoch AS last_leader_epoch,
       CASE WHEN l.leaders = 1 AND l.epochs > 1 THEN l.leader END AS same_cut_leader,
       CASE WHEN l.leaders = 1 AND l.epochs > 1 THEN l.first_epoch END AS same_cut_leader_first_epoch,
       CASE WHEN l.leaders = 1 AND l.epochs > 1 THEN l.last_epoch END AS same_cut_leader_last_epoch,
       coalesce(r.records, 0)::BIGINT AS records,
       coalesce(r.non_idem, 0)::BIGINT AS non_idempotent_records
FROM parts p CROSS JOIN settings s
LEFT JOIN by_cut b USING ("partition")
LEFT JOIN by_epoch e USING ("partition")
LEFT JOIN by_cut_leader l USING ("partition")
LEFT JOIN by_rec r USING ("partition")
ORDER BY 1
