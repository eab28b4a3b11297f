package seeds

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

func TestDefaultsAreTheStoryDays(t *testing.T) {
	if wd := DefaultTeaShopDay.Weekday(); wd != time.Monday {
		t.Errorf("DefaultTeaShopDay is a %v, want Monday", wd)
	}
	if got := DefaultTeaShopDay.Format("2 January 2006 15:04 MST"); got != "14 September 2026 00:00 Harbor" {
		t.Errorf("DefaultTeaShopDay = %s", got)
	}
	if wd, m := DefaultWindFarmStart.Weekday(), DefaultWindFarmStart.Month(); wd != time.Thursday || m != time.July {
		t.Errorf("DefaultWindFarmStart is a %v in %v, want a Thursday in July", wd, m)
	}
	if h := DefaultWindFarmStart.UTC().Hour(); h != 11 {
		t.Errorf("DefaultWindFarmStart hour = %d UTC, want 11", h)
	}
	if !reflect.DeepEqual(TeaShop(TeaShopConfig{}), TeaShop(TeaShopConfig{Users: DefaultTeaShopUsers, Day: DefaultTeaShopDay})) {
		t.Error("TeaShop zero config differs from the explicit defaults")
	}
	if !reflect.DeepEqual(WindFarm(WindFarmConfig{}), WindFarm(WindFarmConfig{Farms: 24, TurbinesPerFarm: 4, Minutes: 30, Start: DefaultWindFarmStart})) {
		t.Error("WindFarm zero config differs from the explicit defaults")
	}
}

func TestDeterminism(t *testing.T) {
	tests := []struct {
		name string
		gen  func(seed uint64) any
	}{
		{"teashop/default", func(s uint64) any { return TeaShop(TeaShopConfig{Seed: s}) }},
		{"teashop/300", func(s uint64) any { return TeaShop(TeaShopConfig{Seed: s, Users: 300}) }},
		{"windfarm/default", func(s uint64) any { return WindFarm(WindFarmConfig{Seed: s}) }},
		{"windfarm/small", func(s uint64) any {
			return WindFarm(WindFarmConfig{Seed: s, Farms: 6, TurbinesPerFarm: 2, Minutes: 20})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, seed := range []uint64{0, 1, 42} {
				a, b := tt.gen(seed), tt.gen(seed)
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("seed %d: two runs differ", seed)
				}
			}
			if reflect.DeepEqual(tt.gen(1), tt.gen(2)) {
				t.Fatal("seeds 1 and 2 give identical output")
			}
		})
	}
}

// decodeStrict decodes one JSON value and rejects unknown fields.
func decodeStrict(t *testing.T, b []byte, v any) {
	t.Helper()
	if !json.Valid(b) {
		t.Fatalf("invalid JSON: %s", b)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
}

func isMillis(ts time.Time) bool { return ts.Equal(ts.Truncate(time.Millisecond)) }

func TestTeaShop(t *testing.T) {
	tests := []struct {
		name string
		cfg  TeaShopConfig
	}{
		{"default", TeaShopConfig{}},
		{"only Mia", TeaShopConfig{Users: 1, Seed: 5}},
		{"tiny", TeaShopConfig{Users: 40, Seed: 3}},
		{"larger", TeaShopConfig{Users: 6000, Seed: 99}},
		{"utc day", TeaShopConfig{Users: 500, Seed: 7, Day: time.Date(2026, 9, 14, 0, 0, 0, 0, time.UTC)}},
	}
	names := []string{EventAppOpen, EventViewMenu, EventAddToCart, EventOrderPlaced, EventOrderCompleted}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := TeaShop(tt.cfg)
			day := tt.cfg.Day
			if day.IsZero() {
				day = DefaultTeaShopDay
			}
			users := tt.cfg.Users
			if users == 0 {
				users = DefaultTeaShopUsers
			}

			// Recount everything from the records alone.
			var (
				want         TeaShopTruth
				ids          = map[string]int{}
				firstValue   = map[string][]byte{}
				firstRecord  = map[string]Record{}
				completedIDs = map[string]bool{}
				placedBy     = map[string]string{}
				lastPartTS   = map[int32]time.Time{}
				lastUserTS   = map[string]time.Time{}
				seenUsers    = map[string]bool{}
				harbor       int
				prev         time.Time
			)
			want.Users = users
			for i, r := range d.Events {
				if r.Topic != TopicAppEvents {
					t.Fatalf("record %d: topic %q", i, r.Topic)
				}
				if p := catalog.JavaPartition(r.Key, AppEventsPartitions); r.Partition != p {
					t.Fatalf("record %d: partition %d, JavaPartition(%q, 6) = %d", i, r.Partition, r.Key, p)
				}
				if r.Timestamp.Before(prev) {
					t.Fatalf("record %d: timestamps not in produce order", i)
				}
				prev = r.Timestamp
				if r.Timestamp.Before(lastPartTS[r.Partition]) {
					t.Fatalf("record %d: partition %d not in time order", i, r.Partition)
				}
				lastPartTS[r.Partition] = r.Timestamp
				if !isMillis(r.Timestamp) || r.Timestamp.Before(day) || !r.Timestamp.Before(day.Add(24*time.Hour)) {
					t.Fatalf("record %d: timestamp %v not whole ms within the day", i, r.Timestamp)
				}
				var e AppEvent
				decodeStrict(t, r.Value, &e)
				if string(r.Key) != e.UserID {
					t.Fatalf("record %d: key %q, user_id %q", i, r.Key, e.UserID)
				}
				if !slices.Contains(names, e.EventName) || !slices.Contains(Cities, e.City) || !slices.Contains(Platforms, e.Platform) {
					t.Fatalf("record %d: bad value %s", i, r.Value)
				}
				isOrderEvent := e.EventName == EventOrderPlaced || e.EventName == EventOrderCompleted
				if isOrderEvent != (e.OrderID != "") {
					t.Fatalf("record %d: order_id presence wrong: %s", i, r.Value)
				}
				ts, err := time.Parse(TimeLayout, e.TS)
				if err != nil || !strings.HasSuffix(e.TS, "Z") {
					t.Fatalf("record %d: ts %q: %v", i, e.TS, err)
				}
				if lag := r.Timestamp.Sub(ts); lag < 0 || lag > 5*time.Minute {
					t.Fatalf("record %d: arrived %v after ts", i, lag)
				}
				want.Events++
				want.PerPartition[r.Partition]++
				ids[e.EventID]++
				if ids[e.EventID] == 1 {
					firstValue[e.EventID], firstRecord[e.EventID] = r.Value, r
					// A user's events (first copies) are in ts order.
					if ts.Before(lastUserTS[e.UserID]) {
						t.Fatalf("record %d: user %s events out of order", i, e.UserID)
					}
					lastUserTS[e.UserID] = ts
				} else {
					// An at-least-once copy: same value and key, same
					// partition, a little later.
					orig := firstRecord[e.EventID]
					if !bytes.Equal(firstValue[e.EventID], r.Value) || !bytes.Equal(orig.Key, r.Key) || orig.Partition != r.Partition {
						t.Fatalf("record %d: copy of %s differs from the original", i, e.EventID)
					}
					if lag := r.Timestamp.Sub(orig.Timestamp); lag < time.Second || lag > 5*time.Minute {
						t.Fatalf("record %d: copy %v after the original", i, lag)
					}
				}
				seenUsers[e.UserID] = true
				if e.City == "Harbor" {
					harbor++
				}
				switch e.EventName {
				case EventOrderCompleted:
					want.CompletedTickets++
					completedIDs[e.OrderID] = true
				case EventOrderPlaced:
					if u, ok := placedBy[e.OrderID]; ok && u != e.UserID {
						t.Fatalf("order %s placed by %s and %s", e.OrderID, u, e.UserID)
					}
					placedBy[e.OrderID] = e.UserID
				}
			}
			if len(seenUsers) != users {
				t.Errorf("%d users have events, want %d", len(seenUsers), users)
			}
			want.DistinctEventIDs = len(ids)
			for _, n := range ids {
				if n > 1 {
					want.DuplicateIDs++
				}
			}
			want.ExtraCopies = want.Events - want.DistinctEventIDs
			want.CompletedOrders = len(completedIDs)
			want.HarborShare = float64(harbor) / float64(want.Events)

			// Orders table against the events.
			want.Orders = len(d.Orders)
			want.MissingByPlatform = map[string]int{"ios": 0, "android": 0, "web": 0}
			orderIDs := map[string]bool{}
			for i, o := range d.Orders {
				if orderIDs[o.OrderID] {
					t.Fatalf("order id %s twice", o.OrderID)
				}
				orderIDs[o.OrderID] = true
				if i > 0 && o.PlacedAt.Before(d.Orders[i-1].PlacedAt) {
					t.Fatalf("orders not sorted by PlacedAt at %d", i)
				}
				if placedBy[o.OrderID] != o.UserID {
					t.Fatalf("order %s of %s has no order_placed event by that user", o.OrderID, o.UserID)
				}
				if !completedIDs[o.OrderID] {
					want.OrdersMissingCompleted++
					want.MissingByPlatform[o.Platform]++
					want.MissingOrderIDs = append(want.MissingOrderIDs, o.OrderID)
				}
			}
			slices.Sort(want.MissingOrderIDs)
			if len(placedBy) != len(d.Orders) {
				t.Errorf("%d orders placed in events, %d in the orders table", len(placedBy), len(d.Orders))
			}
			for id := range completedIDs {
				if !orderIDs[id] {
					t.Errorf("order_completed for unknown order %s", id)
				}
			}
			want.CityPartitionsIfKeyedByCity = map[string]int32{}
			for _, c := range Cities {
				want.CityPartitionsIfKeyedByCity[c] = catalog.JavaPartition([]byte(c), 6)
			}
			want.MiaPartition = catalog.JavaPartition([]byte("u000001"), 6)

			got := d.Truth
			if math.Abs(got.HarborShare-want.HarborShare) > 1e-12 {
				t.Errorf("HarborShare = %v, recount %v", got.HarborShare, want.HarborShare)
			}
			got.HarborShare = want.HarborShare
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Truth = %+v\nrecount %+v", got, want)
			}

			// Mia's story holds whatever the seed.
			var mia []string
			for _, r := range d.Events {
				if string(r.Key) == MiaUserID {
					var e AppEvent
					decodeStrict(t, r.Value, &e)
					mia = append(mia, e.EventName+"@"+r.Timestamp.In(HarborTime).Format("15:04:05"))
					if e.City != "Harbor" || e.Platform != "ios" || r.Partition != want.MiaPartition {
						t.Errorf("Mia's record %s", r.Value)
					}
				}
			}
			wantMia := []string{"app_open@08:43:49", "view_menu@08:43:57", "add_to_cart@08:45:42", "order_placed@08:46:29"}
			if day == DefaultTeaShopDay && !slices.Equal(mia, wantMia) {
				t.Errorf("Mia's events %v, want %v", mia, wantMia)
			}
			if !slices.Contains(got.MissingOrderIDs, MiaOrderID) || placedBy[MiaOrderID] != MiaUserID {
				t.Errorf("Mia's order %s is not a missing order of hers", MiaOrderID)
			}

			// The planted shapes, at sizes where they are meaningful.
			if users >= 1000 {
				frac := float64(got.OrdersMissingCompleted) / float64(got.Orders)
				ios := float64(got.MissingByPlatform["ios"]) / float64(got.OrdersMissingCompleted)
				dupShare := float64(got.ExtraCopies) / float64(got.Events)
				if frac < 0.12 || frac > 0.18 || ios < 0.95 || ios == 1 {
					t.Errorf("missing: %d of %d orders (%.3f), iOS share %.3f", got.OrdersMissingCompleted, got.Orders, frac, ios)
				}
				if got.CompletedTickets-got.CompletedOrders < 2 {
					t.Errorf("completed tickets %d vs orders %d: want a couple of copies", got.CompletedTickets, got.CompletedOrders)
				}
				if dupShare < 0.002 || dupShare > 0.005 {
					t.Errorf("copies are %.4f of records", dupShare)
				}
				if got.HarborShare < 0.35 || got.HarborShare > 0.43 {
					t.Errorf("HarborShare %.3f", got.HarborShare)
				}
				for p, n := range got.PerPartition {
					if s := float64(n) / float64(got.Events); s < 0.13 || s > 0.20 {
						t.Errorf("partition %d holds %.3f of the events", p, s)
					}
				}
			}
		})
	}
}

func TestOrdersCSV(t *testing.T) {
	d := TeaShop(TeaShopConfig{Users: 300, Seed: 11})
	var buf bytes.Buffer
	if err := d.OrdersCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(d.Orders)+1 {
		t.Fatalf("%d rows for %d orders", len(rows), len(d.Orders))
	}
	if h := strings.Join(rows[0], ","); h != "order_id,user_id,platform,city,placed_at" {
		t.Fatalf("header %q", h)
	}
	for i, o := range d.Orders {
		row := rows[i+1]
		at, err := time.Parse(TimeLayout, row[4])
		if err != nil || !at.Equal(o.PlacedAt) || row[0] != o.OrderID || row[1] != o.UserID || row[2] != o.Platform || row[3] != o.City {
			t.Fatalf("row %d = %v, order %+v (%v)", i+1, row, o, err)
		}
	}
}

func TestWindFarm(t *testing.T) {
	tests := []struct {
		name      string
		cfg       WindFarmConfig
		farms     int
		turbines  int
		minutes   int
		emptyPart int // partitions with no farm
	}{
		{"default", WindFarmConfig{}, 24, 4, 30, 0},
		{"21 farms as in the story", WindFarmConfig{Farms: 21, Seed: 9}, 21, 4, 30, 3},
		{"small", WindFarmConfig{Farms: 6, TurbinesPerFarm: 2, Minutes: 20, Seed: 5}, 6, 2, 20, 18},
		{"clamped", WindFarmConfig{Farms: 2, TurbinesPerFarm: 1, Minutes: 3, Seed: 1}, 4, 1, 20, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := WindFarm(tt.cfg)
			start := tt.cfg.Start
			if start.IsZero() {
				start = DefaultWindFarmStart
			}
			silentFrom, silentTo := start.Add(2*time.Minute), start.Add(16*time.Minute)
			if len(d.FarmPartition) != tt.farms {
				t.Fatalf("%d farms, want %d", len(d.FarmPartition), tt.farms)
			}
			for f := 0; f < tt.farms; f++ {
				if p, ok := d.FarmPartition[Farms[f].Name]; !ok || p != int32(f) {
					t.Fatalf("farm %s → %d, %v", Farms[f].Name, p, ok)
				}
			}
			silentPart, ok := d.FarmPartition["kilmore-sands"]
			if !ok {
				t.Fatal("no Kilmore Sands")
			}

			type key struct {
				turbine string
				at      time.Time
			}
			seen := map[key]bool{}
			perTurbine := map[string]int{}
			late := 0
			check := func(topic string, recs []Record) (last map[int32][]time.Time) {
				last = map[int32][]time.Time{}
				var prev time.Time
				for i, r := range recs {
					if r.Topic != topic {
						t.Fatalf("%s[%d]: topic %q", topic, i, r.Topic)
					}
					if r.Timestamp.Before(prev) || !isMillis(r.Timestamp) {
						t.Fatalf("%s[%d]: timestamp %v out of order or not whole ms", topic, i, r.Timestamp)
					}
					prev = r.Timestamp
					var v Reading
					decodeStrict(t, r.Value, &v)
					if m, err := json.Marshal(v); err != nil || !bytes.Equal(m, r.Value) {
						t.Fatalf("%s[%d]: value %s is not what encoding/json writes (%s)", topic, i, r.Value, m)
					}
					if string(r.Key) != v.TurbineID {
						t.Fatalf("%s[%d]: key %q, turbine %q", topic, i, r.Key, v.TurbineID)
					}
					p, ok := d.FarmPartition[v.Farm]
					if !ok || r.Partition != p || r.Partition < 0 || r.Partition >= ReadingsPartitions {
						t.Fatalf("%s[%d]: farm %q on partition %d", topic, i, v.Farm, r.Partition)
					}
					if !strings.HasPrefix(v.TurbineID, Farms[p].Code+"-") {
						t.Fatalf("%s[%d]: turbine %s not of farm %s", topic, i, v.TurbineID, v.Farm)
					}
					at, err := time.Parse(TimeLayout, v.RecordedAt)
					if err != nil {
						t.Fatal(err)
					}
					if at.Before(start) || !at.Before(start.Add(time.Duration(tt.minutes)*time.Minute)) {
						t.Fatalf("%s[%d]: recorded_at %v outside the window", topic, i, at)
					}
					if v.WindMS < 0 || v.PowerKW < 0 || v.PowerKW > 3600 {
						t.Fatalf("%s[%d]: implausible %s", topic, i, r.Value)
					}
					k := key{v.TurbineID, at}
					if seen[k] {
						t.Fatalf("%s[%d]: reading %v twice", topic, i, k)
					}
					seen[k] = true
					perTurbine[v.TurbineID]++
					if r.Timestamp.Sub(at) > time.Minute {
						late++
					}
					inSilence := !at.Before(silentFrom) && at.Before(silentTo) && v.Farm == "kilmore-sands"
					if inSilence != (topic == TopicReadingsBackfill) {
						t.Fatalf("%s[%d]: reading of %s at %v in the wrong topic", topic, i, v.Farm, at)
					}
					last[r.Partition] = append(last[r.Partition], r.Timestamp)
				}
				return last
			}
			live := check(TopicReadings, d.Readings)
			check(TopicReadingsBackfill, d.Backfill)

			perTurbineWant := tt.minutes * 30
			if len(perTurbine) != tt.farms*tt.turbines {
				t.Errorf("%d turbines, want %d", len(perTurbine), tt.farms*tt.turbines)
			}
			for id, n := range perTurbine {
				if n != perTurbineWant {
					t.Errorf("turbine %s has %d readings, want %d", id, n, perTurbineWant)
				}
			}
			backfillWant := tt.turbines * 14 * 30
			want := WindFarmTruth{
				Farms: tt.farms, Turbines: tt.farms * tt.turbines,
				Readings: tt.farms*tt.turbines*perTurbineWant - backfillWant, BackfillRecords: backfillWant,
				SilentFarm: "kilmore-sands", SilentPartition: silentPart,
				SilentFrom: silentFrom, SilentTo: silentTo, LateRecords: late,
			}
			if want.Readings != len(d.Readings) || want.BackfillRecords != len(d.Backfill) || late != backfillWant {
				t.Errorf("readings %d backfill %d late %d", len(d.Readings), len(d.Backfill), late)
			}
			if !reflect.DeepEqual(d.Truth, want) {
				t.Errorf("Truth = %+v\nrecount %+v", d.Truth, want)
			}

			// Freshness: the silent partition has one gap > 5 minutes
			// covering the silence; every other farm's gaps are seconds.
			if len(live) != tt.farms || ReadingsPartitions-len(live) != tt.emptyPart {
				t.Errorf("%d live partitions have records, want %d", len(live), tt.farms)
			}
			for p, ts := range live {
				var maxGap time.Duration
				var gapStart time.Time
				for i := 1; i < len(ts); i++ {
					if g := ts[i].Sub(ts[i-1]); g > maxGap {
						maxGap, gapStart = g, ts[i-1]
					}
				}
				if p == silentPart {
					gapEnd := gapStart.Add(maxGap)
					// The last record before the silence was recorded
					// before SilentFrom but may arrive up to 400ms later.
					if maxGap <= 5*time.Minute || gapStart.After(silentFrom.Add(time.Second)) || gapEnd.Before(silentTo) {
						t.Errorf("silent partition %d: max gap %v from %v", p, maxGap, gapStart)
					}
				} else if maxGap > 5*time.Second {
					t.Errorf("partition %d: gap %v", p, maxGap)
				}
			}
			for _, r := range d.Backfill {
				if r.Timestamp.Before(start.Add(21*time.Minute)) || r.Partition != silentPart {
					t.Fatalf("backfill record at %v on partition %d", r.Timestamp, r.Partition)
				}
			}
		})
	}
}

func TestSizes(t *testing.T) {
	ts := TeaShop(TeaShopConfig{})
	wf := WindFarm(WindFarmConfig{})
	t.Logf("tea shop: %+v", ts.Truth)
	t.Logf("wind farm: %+v", wf.Truth)
	if n := len(ts.Events); n >= 100_000 {
		t.Errorf("tea shop default has %d records", n)
	}
	if n := len(wf.Readings) + len(wf.Backfill); n >= 100_000 {
		t.Errorf("wind farm default has %d records", n)
	}
}

func BenchmarkTeaShopDefault(b *testing.B) {
	for b.Loop() {
		TeaShop(TeaShopConfig{})
	}
}

func BenchmarkWindFarmDefault(b *testing.B) {
	for b.Loop() {
		WindFarm(WindFarmConfig{})
	}
}
