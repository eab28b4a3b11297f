package units

import (
	"testing"
	"time"
)

func TestBytesAndSize(t *testing.T) {
	for _, c := range []struct {
		n           int64
		bytes, size string
	}{
		{0, "0 B", "0 B"},
		{100, "100 B", "100 B"},
		{1 << 10, "1.0 KiB", "1 KiB"},
		{64 << 10, "64.0 KiB", "64 KiB"},
		{1536, "1.5 KiB", "1536 B"},
		{4 << 20, "4.0 MiB", "4 MiB"},
		{4<<20 + 1, "4.0 MiB", "4194305 B"},
		{512 << 20, "512.0 MiB", "512 MiB"},
		{1 << 30, "1.00 GiB", "1 GiB"},
		{3 << 29, "1.50 GiB", "1536 MiB"},
		{2 << 30, "2.00 GiB", "2 GiB"},
	} {
		if got := Bytes(c.n); got != c.bytes {
			t.Errorf("Bytes(%d) = %q, want %q", c.n, got, c.bytes)
		}
		if got := Size(c.n); got != c.size {
			t.Errorf("Size(%d) = %q, want %q", c.n, got, c.size)
		}
	}
}

func TestTime(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	for _, c := range []struct {
		t    time.Time
		want string
	}{
		{time.Date(2026, 9, 14, 8, 47, 0, 0, time.UTC), "2026-09-14 08:47:00Z"},
		{time.Date(2026, 9, 14, 8, 47, 0, 123_000_000, time.UTC), "2026-09-14 08:47:00.123Z"},
		{time.Date(2026, 9, 14, 8, 47, 0, 123_456_789, time.UTC), "2026-09-14 08:47:00.123456Z"},
		{time.Date(2026, 9, 14, 9, 47, 0, 0, cet), "2026-09-14 08:47:00Z"},
	} {
		if got := Time(c.t); got != c.want {
			t.Errorf("Time(%v) = %q, want %q", c.t, got, c.want)
		}
	}
}
