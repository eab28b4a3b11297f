package suggest

import "testing"

func TestClosest(t *testing.T) {
	for _, c := range []struct {
		s     string
		cands []string
		want  string
	}{
		{"poisn", []string{"empty3", "poison"}, "poison"},
		{"Orders", []string{"orders", "payments"}, "orders"},
		{"app_event", []string{"app_events"}, "app_events"},
		{"zzz", []string{"orders", "payments"}, ""},
		{"x", nil, ""},
		{"ssl.truststore.locaton", []string{"ssl.ca.location", "ssl.truststore.location"}, "ssl.truststore.location"},
	} {
		if got := Closest(c.s, c.cands); got != c.want {
			t.Errorf("Closest(%q, %q) = %q, want %q", c.s, c.cands, got, c.want)
		}
	}
}
