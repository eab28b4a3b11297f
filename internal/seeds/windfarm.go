package seeds

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// Galewatch's topics and fixed characters.
const (
	TopicReadings         = "readings"
	TopicReadingsBackfill = "readings-backfill"
	ReadingsPartitions    = 24

	DefaultFarms           = 24
	DefaultTurbinesPerFarm = 4
	DefaultMinutes         = 30
	// MinMinutes is the shortest window WindFarm generates: the silence
	// runs to Start+16m and needs live readings after it.
	MinMinutes = 20

	// SilentFarm is the farm that goes quiet; it is farm 3, so partition 3.
	SilentFarm = "kilmore-sands"

	// ReadingInterval is how often every turbine reports.
	ReadingInterval = 2 * time.Second
	// LateAfter is the lateness that sends a reading to the backfill lane:
	// recorded_at more than this behind its arrival.
	LateAfter = time.Minute
)

// Offsets from Start of the silence and of the replay into the backfill topic.
const (
	silenceFrom = 2 * time.Minute
	silenceTo   = 16 * time.Minute
	replayFrom  = 21 * time.Minute
)

// DefaultWindFarmStart is 11:00 UTC on Thursday 16 July 2026.
var DefaultWindFarmStart = time.Date(2026, time.July, 16, 11, 0, 0, 0, time.UTC)

// Farms lists Galewatch's farms in partition order: farm i is on partition i
// of both topics. Turbine ids are the farm's code, a dash and a two-digit
// number ("KS-01").
var Farms = []struct{ Name, Code string }{
	{"ardnave-point", "AP"}, {"ballycran-moor", "BM"}, {"carrick-head", "CH"}, {"kilmore-sands", "KS"},
	{"dunmore-moss", "DM"}, {"eskdale-fell", "EF"}, {"fannich-ridge", "FR"}, {"glenbeg-flats", "GF"},
	{"hollin-edge", "HE"}, {"inverkip-shore", "IS"}, {"jarrow-banks", "JB"}, {"lochcarron-west", "LW"},
	{"maiden-rigg", "MR"}, {"nethermuir", "NM"}, {"orwell-sands", "OS"}, {"portnahaven", "PN"},
	{"quarry-hill", "QH"}, {"rannoch-high", "RH"}, {"stromay", "ST"}, {"tarbert-ness", "TN"},
	{"ullapool-brae", "UB"}, {"vatersay-sound", "VS"}, {"whitelee-north", "WN"}, {"yell-sound", "YS"},
}

// WindFarmConfig configures [WindFarm]. Zero fields take their defaults.
type WindFarmConfig struct {
	Farms           int       // default 24; clamped to [4, 24] (farm 3 is Kilmore Sands)
	TurbinesPerFarm int       // default 4
	Minutes         int       // default 30 (11:00–11:30); at least MinMinutes
	Seed            uint64    // any value, 0 included
	Start           time.Time // default DefaultWindFarmStart; truncated to the millisecond
}

// Reading is the JSON value of a readings or readings-backfill record.
type Reading struct {
	TurbineID  string  `json:"turbine_id"`
	Farm       string  `json:"farm"`
	RecordedAt string  `json:"recorded_at"` // event time, TimeLayout
	PowerKW    float64 `json:"power_kw"`
	WindMS     float64 `json:"wind_ms"`
}

// WindFarmTruth is what checks over the generated topics must find.
type WindFarmTruth struct {
	Farms, Turbines int
	Readings        int // records in readings
	BackfillRecords int // records in readings-backfill

	// Kilmore Sands has no record in readings with recorded_at in
	// [SilentFrom, SilentTo); its partition of readings shows one gap of
	// about SilentTo-SilentFrom (14 minutes) between broker timestamps,
	// from just before SilentFrom (a reading recorded before it arrives up
	// to 400ms later) to just after SilentTo. Every other gap in readings
	// is a few seconds at most.
	SilentFarm           string
	SilentPartition      int32
	SilentFrom, SilentTo time.Time

	// LateRecords counts records of both topics whose timestamp is more than
	// LateAfter after their recorded_at (all of them in the backfill topic).
	LateRecords int
}

// WindFarmData is one generated half hour of Galewatch.
type WindFarmData struct {
	Readings      []Record // topic readings, sorted by Timestamp (then partition)
	Backfill      []Record // topic readings-backfill, likewise
	FarmPartition map[string]int32
	Truth         WindFarmTruth
}

// turbine power curve: 3.6 MW, cut in at 3 m/s, rated from 12.5 m/s, cut out
// at 25 m/s.
func powerKW(v float64) float64 {
	const rated, cutIn, ratedAt, cutOut = 3600.0, 3.0, 12.5, 25.0
	switch {
	case v < cutIn || v >= cutOut:
		return 0
	case v >= ratedAt:
		return rated
	default:
		return rated * (v*v*v - cutIn*cutIn*cutIn) / (ratedAt*ratedAt*ratedAt - cutIn*cutIn*cutIn)
	}
}

// appendReading appends the JSON of a Reading, exactly as encoding/json would
// write it (field order, shortest float form). The strings are turbine ids and
// farm names from Farms: plain ASCII, nothing to escape.
func appendReading(b []byte, turbineID, farm string, recordedAt time.Time, powerKW, windMS float64) []byte {
	b = append(b, `{"turbine_id":"`...)
	b = append(b, turbineID...)
	b = append(b, `","farm":"`...)
	b = append(b, farm...)
	b = append(b, `","recorded_at":"`...)
	b = recordedAt.UTC().AppendFormat(b, TimeLayout)
	b = append(b, `","power_kw":`...)
	b = strconv.AppendFloat(b, powerKW, 'f', -1, 64)
	b = append(b, `,"wind_ms":`...)
	b = strconv.AppendFloat(b, windMS, 'f', -1, 64)
	return append(b, '}')
}

// WindFarm generates the readings of Galewatch's July Thursday, with Kilmore
// Sands silent from Start+2m to Start+16m and its buffered readings replayed
// into readings-backfill from Start+21m.
func WindFarm(cfg WindFarmConfig) *WindFarmData {
	if cfg.Farms <= 0 {
		cfg.Farms = DefaultFarms
	}
	cfg.Farms = min(max(cfg.Farms, 4), len(Farms))
	if cfg.TurbinesPerFarm <= 0 {
		cfg.TurbinesPerFarm = DefaultTurbinesPerFarm
	}
	if cfg.Minutes <= 0 {
		cfg.Minutes = DefaultMinutes
	}
	cfg.Minutes = max(cfg.Minutes, MinMinutes)
	if cfg.Start.IsZero() {
		cfg.Start = DefaultWindFarmStart
	}
	start := ms(cfg.Start)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x57696e6446_61726d)) // "WindFarm"

	silentFrom, silentTo := start.Add(silenceFrom), start.Add(silenceTo)
	replayAt := start.Add(replayFrom)
	steps := cfg.Minutes * int(time.Minute/ReadingInterval)

	d := &WindFarmData{FarmPartition: make(map[string]int32, cfg.Farms)}
	tr := &d.Truth
	tr.Farms, tr.Turbines = cfg.Farms, cfg.Farms*cfg.TurbinesPerFarm
	tr.SilentFarm, tr.SilentFrom, tr.SilentTo = SilentFarm, silentFrom, silentTo

	type turbine struct {
		id       string
		phase    time.Duration
		factor   float64
		buffered int
	}
	type farmState struct {
		name       string
		part       int32
		silent     bool
		mean, wind float64
		turbines   []turbine
	}
	farms := make([]farmState, cfg.Farms)
	for f := range farms {
		fs := &farms[f]
		fs.name, fs.part = Farms[f].Name, int32(f)
		fs.silent = fs.name == SilentFarm
		d.FarmPartition[fs.name] = fs.part
		if fs.silent {
			tr.SilentPartition = fs.part
		}
		fs.turbines = make([]turbine, cfg.TurbinesPerFarm)
		for i := range fs.turbines {
			fs.turbines[i] = turbine{
				id:     fmt.Sprintf("%s-%02d", Farms[f].Code, i+1),
				phase:  between(rng, 0, ReadingInterval-time.Millisecond),
				factor: 0.93 + 0.14*rng.Float64(),
			}
		}
		fs.mean = 5 + 8*rng.Float64()
		fs.wind = fs.mean
	}

	total := cfg.Farms * cfg.TurbinesPerFarm * steps
	buffered := cfg.TurbinesPerFarm * int((silenceTo-silenceFrom)/ReadingInterval)
	d.Readings = make([]Record, 0, total-buffered)
	d.Backfill = make([]Record, 0, buffered)
	// Time-major, so the records come out nearly sorted already.
	for s := 0; s < steps; s++ {
		for f := range farms {
			fs := &farms[f]
			fs.wind = max(0, fs.wind+0.05*(fs.mean-fs.wind)+0.08*rng.NormFloat64())
			for i := range fs.turbines {
				tb := &fs.turbines[i]
				recordedAt := start.Add(time.Duration(s)*ReadingInterval + tb.phase)
				v := max(0, fs.wind*tb.factor+0.4*rng.NormFloat64())
				rec := Record{
					Topic:     TopicReadings,
					Partition: fs.part,
					Key:       []byte(tb.id),
					Value:     appendReading(make([]byte, 0, 128), tb.id, fs.name, recordedAt, math.Round(powerKW(v)*10)/10, math.Round(v*100)/100),
				}
				if fs.silent && !recordedAt.Before(silentFrom) && recordedAt.Before(silentTo) {
					// Buffered in the turbine's flash, replayed after the
					// link came back, turbines side by side.
					rec.Topic = TopicReadingsBackfill
					rec.Timestamp = replayAt.Add(time.Duration(i)*150*time.Millisecond + time.Duration(tb.buffered)*40*time.Millisecond)
					tb.buffered++
					d.Backfill = append(d.Backfill, rec)
				} else {
					rec.Timestamp = recordedAt.Add(between(rng, 15*time.Millisecond, 400*time.Millisecond))
					d.Readings = append(d.Readings, rec)
				}
				if rec.Timestamp.Sub(recordedAt) > LateAfter {
					tr.LateRecords++
				}
			}
		}
	}

	recTime := func(r *Record) time.Time { return r.Timestamp }
	recPart := func(r *Record) int32 { return r.Partition }
	sortByTime(d.Readings, recTime, recPart)
	sortByTime(d.Backfill, recTime, recPart)
	tr.Readings, tr.BackfillRecords = len(d.Readings), len(d.Backfill)
	return d
}
