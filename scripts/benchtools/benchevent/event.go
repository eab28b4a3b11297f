// Package benchevent makes the synthetic JSON events of the topicsnap
// benchmarks: scripts/benchtools/produce sends them to a broker,
// scripts/benchtools/mksnap writes them straight into a snapshot folder.
// A bench tool, not part of the product.
package benchevent

import (
	"math/rand/v2"
	"strconv"
	"time"
)

var (
	eventTypes = []string{"page_view", "add_to_cart", "checkout", "search", "login", "logout"}
	countries  = []string{"DE", "FR", "US", "GB", "NL", "SE", "ES", "IT", "PL", "JP"}
	devices    = []string{"mobile", "desktop", "tablet"}
)

// Append appends event i, produced at now, to buf and returns it with the
// event's key ("user-NNNNN"). The value is a JSON object of about 194 bytes
// with a unique "event_id"; rng decides the rest, so a seed decides it all.
func Append(buf []byte, rng *rand.Rand, i int, now time.Time) (value, key []byte) {
	user := rng.IntN(100_000)
	buf = append(buf, `{"event_id":"`...)
	buf = appendHex(buf, rng.Uint64())
	buf = appendHex(buf, uint64(i))
	buf = append(buf, `","type":"`...)
	buf = append(buf, eventTypes[rng.IntN(len(eventTypes))]...)
	buf = append(buf, `","user_id":`...)
	buf = strconv.AppendInt(buf, int64(user), 10)
	buf = append(buf, `,"ts":"`...)
	buf = now.UTC().AppendFormat(buf, "2006-01-02T15:04:05.000Z")
	buf = append(buf, `","amount":`...)
	buf = strconv.AppendFloat(buf, float64(rng.IntN(100_000))/100, 'f', 2, 64)
	buf = append(buf, `,"country":"`...)
	buf = append(buf, countries[rng.IntN(len(countries))]...)
	buf = append(buf, `","device":"`...)
	buf = append(buf, devices[rng.IntN(len(devices))]...)
	buf = append(buf, `","url":"/products/`...)
	buf = strconv.AppendInt(buf, int64(rng.IntN(50_000)), 10)
	buf = append(buf, `?ref=c`...)
	buf = strconv.AppendInt(buf, int64(rng.IntN(1000)), 10)
	buf = append(buf, `"}`...)
	return buf, []byte("user-" + strconv.Itoa(user))
}

const hexDigits = "0123456789abcdef"

func appendHex(b []byte, v uint64) []byte {
	for s := 60; s >= 0; s -= 4 {
		b = append(b, hexDigits[(v>>uint(s))&0xf])
	}
	return b
}
