package display

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

// Column writes a report's value for people, by what its column holds:
// the one formatter of the check reports (summaries, tables, chart notes,
// messages), so that a figure reads the same everywhere. The JSON keeps
// the raw values (JSON).
//
//   - a duration in seconds (a column named seconds or *_seconds) as a
//     duration: 6.68152e+06 is "77d 8h", 199.96999979019165 is "3m 20s";
//   - a share (share, *_share: a fraction of 1) as a percentage: "16.56%";
//   - a count as an integer with thousands separators: "37,789"; an
//     address (an offset, a partition, an epoch, an id) is not a count and
//     keeps its plain digits, so it can be copied into a command;
//   - a client's host without the Java client's leading slash, a list of
//     them (hosts) joined with ", ";
//   - anything else as Text.
func Column(column string, v any) string {
	if h, ok := hostText(column, v); ok {
		return h
	}
	f, isNum := number(v)
	switch {
	case v == nil:
		return Null
	case isNum && isSeconds(column):
		return Seconds(f)
	case isNum && isShare(column):
		return Share(f)
	case isNum && isAddress(column):
		return plain(v, f)
	case isNum:
		return Number(f)
	}
	return Text(v)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// plain writes an address's digits as they are.
func plain(v any, f float64) string {
	switch v.(type) {
	case float64, float32:
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func isSeconds(c string) bool {
	c = strings.ToLower(c)
	return c == "seconds" || strings.HasSuffix(c, "_seconds") || strings.HasPrefix(c, "seconds_")
}

// isShare reports whether column c holds a fraction shown as a percentage
// (share, fair_share, share_of_missing); a name that counts things
// (share_groups, share_lag_records: Kafka's share groups) is no fraction.
func isShare(c string) bool {
	c = strings.ToLower(c)
	for _, count := range []string{"_groups", "_records", "_partitions"} {
		if strings.HasSuffix(c, count) {
			return false
		}
	}
	return c == "share" || strings.HasSuffix(c, "_share") || strings.HasPrefix(c, "share_")
}

func isAddress(c string) bool {
	c = strings.ToLower(c)
	return strings.Contains(c, "offset") || strings.Contains(c, "partition") || strings.Contains(c, "epoch") ||
		c == "id" || strings.HasSuffix(c, "_id") || c == "pid"
}

// Number writes a number with thousands separators: 1234567 is
// 1,234,567; a fraction is rounded to 4 significant digits, never in its
// whole part (0.12345 is 0.1235, 12.345678 is 12.35, 1234.5678 is 1,235).
func Number(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Sprint(f)
	}
	neg := f < 0
	a := math.Abs(f)
	whole, frac := math.Modf(a)
	digits := ""
	if frac != 0 && a < 1e15 {
		decimals := 4
		if a >= 1 {
			decimals = max(0, 4-int(math.Log10(a))-1)
		}
		s := strconv.FormatFloat(a, 'f', decimals, 64)
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		w, d, _ := strings.Cut(s, ".")
		whole, _ = strconv.ParseFloat(w, 64)
		if d != "" {
			digits = "." + d
		}
	}
	s := strconv.FormatFloat(whole, 'f', 0, 64)
	var b strings.Builder
	if neg && (whole != 0 || digits != "") {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String() + digits
}

// Seconds writes seconds as a duration a person reads at a glance, to two
// units: 0.116 is 116ms, 12.5 is 12.5s, 199.97 is 3m 20s, 1830 is 30m 30s,
// 18000 is 5h 0m, 6,681,520 is 77d 8h.
func Seconds(sec float64) string {
	if math.IsNaN(sec) || math.IsInf(sec, 0) {
		return fmt.Sprint(sec)
	}
	sign := ""
	if sec < 0 {
		sign, sec = "-", -sec
	}
	switch {
	case sec == 0:
		return "0s"
	case sec < 1:
		return fmt.Sprintf("%s%.0fms", sign, sec*1000)
	case sec < 60:
		return sign + strings.TrimSuffix(strconv.FormatFloat(math.Round(sec*10)/10, 'f', 1, 64), ".0") + "s"
	}
	s := int64(math.Round(sec))
	switch {
	case s < 3600:
		return fmt.Sprintf("%s%dm %ds", sign, s/60, s%60)
	case s < 86400:
		return fmt.Sprintf("%s%dh %dm", sign, s/3600, s%3600/60)
	}
	return fmt.Sprintf("%s%sd %dh", sign, Number(float64(s/86400)), s%86400/3600)
}

// Share writes a fraction of 1 as a percentage: 0.16556 is 16.56%,
// 0.0007 is 0.07%, 1 is 100%.
func Share(f float64) string {
	p := f * 100
	switch {
	case p == 0:
		return "0%"
	case math.Abs(p) < 0.01:
		return "<0.01%"
	}
	s := strconv.FormatFloat(p, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s + "%"
}

// hostText writes a client's host as a person reads it: the Java client
// reports "/10.20.3.40", shown 10.20.3.40; a list of them (a column named
// hosts) is joined with ", ". The JSON keeps the broker's text.
func hostText(column string, v any) (string, bool) {
	c := strings.ToLower(column)
	if c != "host" && c != "hosts" && !strings.HasSuffix(c, "_host") && !strings.HasSuffix(c, "_hosts") {
		return "", false
	}
	one := func(x any) (string, bool) {
		s, ok := x.(string)
		return String(strings.TrimPrefix(s, "/")), ok
	}
	switch x := v.(type) {
	case string:
		return one(x)
	case []string:
		out := make([]string, len(x))
		for i, h := range x {
			out[i], _ = one(h)
		}
		return strings.Join(out, ", "), true
	case []any:
		out := make([]string, len(x))
		for i, h := range x {
			s, ok := one(h)
			if !ok {
				return "", false
			}
			out[i] = s
		}
		return strings.Join(out, ", "), true
	}
	return "", false
}

// Numeric reads v as a float64 when it is a number of any kind DuckDB
// gives (huge integers and decimals too, rounded): what a chart plots.
func Numeric(v any) (float64, bool) {
	switch x := v.(type) {
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f, true
	case duckdb.Decimal:
		return x.Float64(), true
	case uint:
		return float64(x), true
	}
	return number(v)
}
