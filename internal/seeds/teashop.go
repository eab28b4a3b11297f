package seeds

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// The tea shop's topic and its fixed characters.
const (
	TopicAppEvents      = "app_events"
	AppEventsPartitions = 6
	DefaultTeaShopUsers = 2000

	// MiaUserID is the analyst of the story; her order MiaOrderID is one of
	// the orders with no order_completed event.
	MiaUserID  = "u000001"
	MiaOrderID = "A1024"
)

// Event names of app_events.
const (
	EventAppOpen        = "app_open"
	EventViewMenu       = "view_menu"
	EventAddToCart      = "add_to_cart"
	EventOrderPlaced    = "order_placed"
	EventOrderCompleted = "order_completed"
)

// Cities and platforms of the tea shop, in a fixed order.
var (
	Cities    = []string{"Harbor", "Northgate", "Oldtown", "Riverside"}
	Platforms = []string{"ios", "android", "web"}
)

var (
	cityWeights     = []float64{0.40, 0.27, 0.18, 0.15}
	platformWeights = []float64{0.48, 0.37, 0.15}
	appVersions     = map[string]string{"ios": "3.2.0", "android": "3.1.4", "web": "2026.37.1"}
	// Relative weight of a session starting in each local hour 06..21.
	hourWeights = []float64{2, 6, 9, 8, 5, 5, 8, 8, 5, 5, 6, 7, 7, 6, 4, 2}
)

// HarborTime is Steep's local time: a fixed UTC−4, the cities being "some
// hours behind UTC". Times inside JSON values are written in UTC.
var HarborTime = time.FixedZone("Harbor", -4*60*60)

// DefaultTeaShopDay is midnight, Harbor time, starting Monday 14 September
// 2026 (04:00 UTC).
var DefaultTeaShopDay = time.Date(2026, time.September, 14, 0, 0, 0, 0, HarborTime)

// Scaling ratios taken from the narrative's Monday (5,711 orders by 14,259
// users, 839 with no order_completed anywhere, 11 of those not iOS, 4,885
// order_completed tickets describing 4,869 orders).
const (
	orderProbability  = 0.40
	missingRatio      = 839.0 / 5711.0
	missingNonIOSPart = 11.0 / 839.0
	duplicateRatio    = 0.003
	completedDupRatio = 16.0 / 4869.0
)

// TeaShopConfig configures [TeaShop]. Zero fields take their defaults.
type TeaShopConfig struct {
	Users int       // number of users (sessions); default 2000
	Seed  uint64    // any value, 0 included
	Day   time.Time // start of the day; default DefaultTeaShopDay
}

// AppEvent is the JSON value of an app_events record.
type AppEvent struct {
	EventID   string `json:"event_id"`
	EventName string `json:"event_name"`
	UserID    string `json:"user_id"`
	City      string `json:"city"`
	Platform  string `json:"platform"`
	OrderID   string `json:"order_id,omitempty"` // order_placed and order_completed only
	TS        string `json:"ts"`                 // client time, TimeLayout
}

// Order is one row of Steep's orders database (the other side of the
// reconciliation): every order placed that day, including those whose
// order_completed event never arrived.
type Order struct {
	OrderID  string
	UserID   string
	Platform string
	City     string
	PlacedAt time.Time
}

// TeaShopTruth is what checks over the generated app_events must find. Every
// figure is counted from the generated records themselves.
type TeaShopTruth struct {
	Users            int
	Events           int // records, copies included
	DistinctEventIDs int
	DuplicateIDs     int // event ids occurring more than once
	ExtraCopies      int // Events - DistinctEventIDs
	PerPartition     [AppEventsPartitions]int

	Orders                 int            // rows of Orders
	OrdersMissingCompleted int            // orders with no order_completed record
	MissingByPlatform      map[string]int // every platform present, zeros included
	MissingOrderIDs        []string       // sorted
	CompletedTickets       int            // order_completed records, copies included
	CompletedOrders        int            // distinct order_id among them

	HarborShare                 float64 // Harbor users' share of the records (copies included)
	CityPartitionsIfKeyedByCity map[string]int32
	MiaPartition                int32
}

// TeaShopData is one generated Monday.
type TeaShopData struct {
	Events []Record // sorted by Timestamp (then partition): produce in this order
	Orders []Order  // sorted by PlacedAt
	Truth  TeaShopTruth
}

type teaUser struct {
	id, city, platform string
	partition          int32
}

type teaOrder struct {
	user     *teaUser
	id       string
	placedAt time.Time
	missing  bool
}

type teaEvent struct {
	user    *teaUser
	name    string
	order   *teaOrder
	ts      time.Time // client time
	arrived time.Time // record timestamp
}

type teaRecord struct {
	rec Record
	ev  *teaEvent
	id  string
}

// TeaShop generates Steep's Monday of app_events and its orders table.
func TeaShop(cfg TeaShopConfig) *TeaShopData {
	if cfg.Users <= 0 {
		cfg.Users = DefaultTeaShopUsers
	}
	if cfg.Day.IsZero() {
		cfg.Day = DefaultTeaShopDay
	}
	day := cfg.Day
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5465615368_6f70)) // "TeaShop"

	var (
		events []*teaEvent
		orders []*teaOrder
	)
	emit := func(u *teaUser, name string, o *teaOrder, ts time.Time, arrived time.Time) {
		events = append(events, &teaEvent{user: u, name: name, order: o, ts: ms(ts), arrived: ms(arrived)})
	}
	arrive := func(ts time.Time) time.Time { return ts.Add(between(rng, 20*time.Millisecond, 900*time.Millisecond)) }

	for i := 1; i <= cfg.Users; i++ {
		u := &teaUser{id: fmt.Sprintf("u%06d", i)}
		u.partition = catalog.JavaPartition([]byte(u.id), AppEventsPartitions)
		if i == 1 {
			// Mia's session, as the narrative tells it (arrival times,
			// Harbor time); her order is placed but never completed.
			u.city, u.platform = "Harbor", "ios"
			at := func(h, m, s int) time.Time {
				return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second)
			}
			o := &teaOrder{user: u, id: MiaOrderID, placedAt: at(8, 47, 21), missing: true}
			orders = append(orders, o)
			const lag = 250 * time.Millisecond
			for _, e := range []struct {
				name    string
				arrived time.Time
			}{
				{EventAppOpen, at(8, 43, 49)},
				{EventViewMenu, at(8, 43, 57)},
				{EventAddToCart, at(8, 45, 42)},
				{EventOrderPlaced, at(8, 46, 29)},
			} {
				var eo *teaOrder
				if e.name == EventOrderPlaced {
					eo = o
				}
				emit(u, e.name, eo, e.arrived.Add(-lag), e.arrived)
			}
			continue
		}
		u.city = Cities[pick(rng, cityWeights)]
		u.platform = Platforms[pick(rng, platformWeights)]
		hour := 6 + pick(rng, hourWeights)
		t := ms(day.Add(time.Duration(hour)*time.Hour + between(rng, 0, time.Hour-time.Millisecond)))
		emit(u, EventAppOpen, nil, t, arrive(t))
		if rng.Float64() < orderProbability {
			for n := 1 + rng.IntN(2); n > 0; n-- {
				t = t.Add(between(rng, 3*time.Second, 60*time.Second))
				emit(u, EventViewMenu, nil, t, arrive(t))
			}
			for n := 1 + rng.IntN(2); n > 0; n-- {
				t = t.Add(between(rng, 10*time.Second, 120*time.Second))
				emit(u, EventAddToCart, nil, t, arrive(t))
			}
			o := &teaOrder{user: u}
			orders = append(orders, o)
			t = t.Add(between(rng, 10*time.Second, 90*time.Second))
			emit(u, EventOrderPlaced, o, t, arrive(t))
			o.placedAt = ms(t.Add(between(rng, time.Second, 60*time.Second)))
			done := o.placedAt.Add(between(rng, 30*time.Second, 8*time.Minute))
			emit(u, EventOrderCompleted, o, done, arrive(done))
		} else {
			views := rng.IntN(3)
			for n := views; n > 0; n-- {
				t = t.Add(between(rng, 3*time.Second, 60*time.Second))
				emit(u, EventViewMenu, nil, t, arrive(t))
			}
			if views > 0 && rng.Float64() < 0.35 {
				t = t.Add(between(rng, 10*time.Second, 120*time.Second))
				emit(u, EventAddToCart, nil, t, arrive(t))
			}
		}
	}

	// Order ids in order of placement, A1001 upwards; A1024 is Mia's.
	slices.SortStableFunc(orders, func(a, b *teaOrder) int { return a.placedAt.Compare(b.placedAt) })
	next := 1001
	for _, o := range orders {
		if o.id != "" {
			continue
		}
		if fmt.Sprintf("A%d", next) == MiaOrderID {
			next++
		}
		o.id = fmt.Sprintf("A%d", next)
		next++
	}

	// The planted losses: about one order in seven, almost all iOS. Mia's
	// counts as one of the iOS ones.
	missing := max(1, round(float64(len(orders))*missingRatio))
	nonIOS := round(float64(missing) * missingNonIOSPart)
	var iosCands, otherCands []*teaOrder
	for _, o := range orders {
		switch {
		case o.missing:
		case o.user.platform == "ios":
			iosCands = append(iosCands, o)
		default:
			otherCands = append(otherCands, o)
		}
	}
	rng.Shuffle(len(iosCands), func(i, j int) { iosCands[i], iosCands[j] = iosCands[j], iosCands[i] })
	rng.Shuffle(len(otherCands), func(i, j int) { otherCands[i], otherCands[j] = otherCands[j], otherCands[i] })
	for _, o := range iosCands[:min(len(iosCands), max(0, missing-nonIOS-1))] {
		o.missing = true
	}
	for _, o := range otherCands[:min(len(otherCands), nonIOS)] {
		o.missing = true
	}

	// Build the records that were written: every event except the
	// order_completed of a lost order.
	var recs []teaRecord
	seen := make(map[string]bool, len(events))
	for _, e := range events {
		if e.name == EventOrderCompleted && e.order.missing {
			continue
		}
		id := newEventID(rng, seen)
		ae := AppEvent{EventID: id, EventName: e.name, UserID: e.user.id, City: e.user.city, Platform: e.user.platform, TS: formatTime(e.ts)}
		if e.order != nil {
			ae.OrderID = e.order.id
		}
		value, err := json.Marshal(ae)
		if err != nil {
			panic(err) // cannot happen: strings only
		}
		recs = append(recs, teaRecord{ev: e, id: id, rec: Record{
			Topic:     TopicAppEvents,
			Partition: e.user.partition,
			Key:       []byte(e.user.id),
			Value:     value,
			Timestamp: e.arrived,
			Headers: []Header{
				{Key: "content-type", Value: []byte("application/json")},
				{Key: "app_version", Value: []byte(appVersions[e.user.platform])},
			},
		}})
	}

	// At-least-once copies: ~0.3% of events (never Mia's, never an
	// order_completed), plus a couple of order_completed events.
	var plain, completed []int
	for i, r := range recs {
		switch {
		case r.ev.user.id == MiaUserID:
		case r.ev.name == EventOrderCompleted:
			completed = append(completed, i)
		default:
			plain = append(plain, i)
		}
	}
	rng.Shuffle(len(plain), func(i, j int) { plain[i], plain[j] = plain[j], plain[i] })
	rng.Shuffle(len(completed), func(i, j int) { completed[i], completed[j] = completed[j], completed[i] })
	dups := plain[:min(len(plain), round(float64(len(recs))*duplicateRatio))]
	dups = append(slices.Clone(dups), completed[:min(len(completed), max(2, round(float64(len(completed))*completedDupRatio)))]...)
	slices.Sort(dups)
	for _, i := range dups {
		orig := recs[i]
		cp := orig
		cp.rec.Key = bytes.Clone(orig.rec.Key)
		cp.rec.Value = bytes.Clone(orig.rec.Value)
		cp.rec.Headers = cloneHeaders(orig.rec.Headers)
		cp.rec.Timestamp = orig.rec.Timestamp.Add(between(rng, 2*time.Second, 4*time.Minute))
		recs = append(recs, cp)
	}

	// Produce order: by arrival time; ties by partition, then generation
	// order. Within a partition this is the offset order.
	sortByTime(recs, func(r *teaRecord) time.Time { return r.rec.Timestamp }, func(r *teaRecord) int32 { return r.rec.Partition })

	d := &TeaShopData{Events: make([]Record, len(recs)), Orders: make([]Order, len(orders))}
	for i, r := range recs {
		d.Events[i] = r.rec
	}
	for i, o := range orders {
		d.Orders[i] = Order{OrderID: o.id, UserID: o.user.id, Platform: o.user.platform, City: o.user.city, PlacedAt: o.placedAt}
	}

	// Truth, counted from what was generated.
	tr := &d.Truth
	tr.Users = cfg.Users
	tr.Events = len(recs)
	idCount := make(map[string]int, len(recs))
	completedIDs := make(map[string]bool)
	harbor := 0
	for _, r := range recs {
		idCount[r.id]++
		tr.PerPartition[r.rec.Partition]++
		if r.ev.user.city == "Harbor" {
			harbor++
		}
		if r.ev.name == EventOrderCompleted {
			tr.CompletedTickets++
			completedIDs[r.ev.order.id] = true
		}
	}
	tr.DistinctEventIDs = len(idCount)
	for _, n := range idCount {
		if n > 1 {
			tr.DuplicateIDs++
		}
	}
	tr.ExtraCopies = tr.Events - tr.DistinctEventIDs
	tr.CompletedOrders = len(completedIDs)
	tr.Orders = len(orders)
	tr.MissingByPlatform = make(map[string]int, len(Platforms))
	for _, p := range Platforms {
		tr.MissingByPlatform[p] = 0
	}
	for _, o := range orders {
		if !completedIDs[o.id] {
			tr.OrdersMissingCompleted++
			tr.MissingByPlatform[o.user.platform]++
			tr.MissingOrderIDs = append(tr.MissingOrderIDs, o.id)
		}
	}
	slices.Sort(tr.MissingOrderIDs)
	if tr.Events > 0 {
		tr.HarborShare = float64(harbor) / float64(tr.Events)
	}
	tr.CityPartitionsIfKeyedByCity = make(map[string]int32, len(Cities))
	for _, c := range Cities {
		tr.CityPartitionsIfKeyedByCity[c] = catalog.JavaPartition([]byte(c), AppEventsPartitions)
	}
	tr.MiaPartition = catalog.JavaPartition([]byte(MiaUserID), AppEventsPartitions)
	return d
}

// newEventID returns a random, not yet used, UUID-v4-shaped id.
func newEventID(rng *rand.Rand, seen map[string]bool) string {
	for {
		hi, lo := rng.Uint64(), rng.Uint64()
		id := fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x",
			hi>>32, (hi>>16)&0xffff, hi&0x0fff, (lo>>48)&0x3fff|0x8000, lo&0xffffffffffff)
		if !seen[id] {
			seen[id] = true
			return id
		}
	}
}

func cloneHeaders(hs []Header) []Header {
	out := make([]Header, len(hs))
	for i, h := range hs {
		out[i] = Header{Key: h.Key, Value: bytes.Clone(h.Value)}
	}
	return out
}

// OrdersCSV writes the orders table as CSV with the header
// order_id,user_id,platform,city,placed_at (placed_at in TimeLayout, UTC),
// one row per order in PlacedAt order.
func (d *TeaShopData) OrdersCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(strings.Split("order_id,user_id,platform,city,placed_at", ",")); err != nil {
		return err
	}
	for _, o := range d.Orders {
		if err := cw.Write([]string{o.OrderID, o.UserID, o.Platform, o.City, formatTime(o.PlacedAt)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
