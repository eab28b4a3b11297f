// Package seeds generates, deterministically, the records of the two worked
// scenarios topicsnap's tests and demos are built on. It is pure data: it
// never talks to Kafka. Another package produces the records to a broker (in
// the order given, so the broker assigns offsets in that order) and then
// dumps and checks them; the Truth of each scenario is what those checks
// must find.
//
// # Tea shop: Steep's Monday of app_events ([TeaShop])
//
// Steep is a tea shop with an app. Every tap is an event on the topic
// app_events (6 partitions, keyed by user id, partition =
// catalog.JavaPartition(key, 6), so one user's events stay in order on one
// partition). Monday 14 September 2026, Harbor time (UTC−4, see [HarborTime]),
// is the day an analyst, Mia (user u000001), finds that her order A1024 has
// no order_completed event and asks whether Kafka lost it. In the scenario:
//
//   - Users belong to four cities (Harbor ≈40%, Northgate ≈27%, Oldtown ≈18%,
//     Riverside ≈15%) and three platforms; each has one session of
//     app_open → view_menu → add_to_cart → order_placed → order_completed,
//     cut short by most users before ordering.
//   - About one order in seven has no order_completed at all, and ≈98.7% of
//     those are iOS orders: the events were never written (the app lost
//     them), so there is no hole in the offsets. Mia's A1024 is one of them.
//   - At-least-once delivery left copies: ≈0.3% of events appear twice (same
//     event_id, same value, the copy seconds to minutes later on the same
//     partition), including a couple of order_completed events, so counting
//     order_completed tickets overstates completed orders.
//   - Keying by city instead of user would make Harbor (≈39% of events) a hot
//     partition; [TeaShopTruth].CityPartitionsIfKeyedByCity shows where each
//     city would land (with 6 partitions Northgate and Riverside even share
//     one).
//
// The narrative this comes from has Mia on partition 2 and 14,259 users;
// here Mia is wherever JavaPartition puts "u000001" (partition 3) and the
// user count is a parameter (2,000 by default, with orders, missing events
// and copies scaled from the narrative's 5,711 orders, 839 missing and
// 4,885 tickets for 4,869 orders).
//
// # Wind farm: Galewatch's July Thursday of readings ([WindFarm])
//
// Galewatch collects a reading every 2 seconds from every turbine of its
// farms. The topic readings has 24 partitions and an explicit farm →
// partition map (farm i → partition i, not a hash), keyed by turbine id. On
// Thursday 16 July 2026 between 11:00 and 11:30 UTC one farm, Kilmore Sands,
// goes silent for 14 minutes (11:02–11:16): its turbines buffer readings in
// flash and replay them from 11:21 into a second topic, readings-backfill
// (same 24 partitions, same map), because the ingest box sends a reading
// whose recorded_at is more than a minute behind its arrival to the backfill
// lane. A freshness check must find the silent stretch (> 5 minutes) on
// Kilmore Sands' partition of readings, and a lateness check must find the
// backfill records (broker time − recorded_at > 1 minute).
//
// # Wind farm: seed 000's day, with its figures ([WriteWindFarmDayFolder])
//
// The folder `topicsnap demo --scenario windfarm` writes: twenty-one farms
// ([DayFarms]) keyed by farm on twenty-four partitions through an explicit
// map, 1,240 turbines, the writers' group with two watchers holding
// partitions 0–5 from 11:02 to 11:16, the group's commit log
// (__consumer_offsets records in Kafka's format, built with
// consumeroffsets/offsetstest), the backfill lane and the compacted routing
// topic. Its comment lists every figure; queries' TestWindFarmDayStoryFigures
// holds the checks to them. [WindFarm] and [WriteWindFarmIncidentFolder]
// remain the smaller, configurable folders the mechanics tests use.
//
// Both generators take a seed: the same config gives byte-identical output
// (math/rand/v2 with a PCG source, no map iteration, no wall clock).
// All times are whole milliseconds, as Kafka stores them.
package seeds
