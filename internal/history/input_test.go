package history

import (
	"strings"
	"testing"
	"time"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for s, want := range map[string]time.Time{
		"2026-01-31":           time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC),
		"2026-01-31T12:00:00Z": time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC),
		"36h":                  now.Add(-36 * time.Hour),
		"7d":                   now.Add(-7 * 24 * time.Hour),
		"1.5d":                 now.Add(-36 * time.Hour),
	} {
		if got, err := ParseSince(s, now); err != nil || !got.Equal(want) {
			t.Errorf("%s: %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"yesterday", "-3d", "-1h", "2026-13-01"} {
		if _, err := ParseSince(s, now); err == nil || !strings.HasPrefix(err.Error(), "--since "+`"`+s+`"`) {
			t.Errorf("%s: %v, want a refusal naming --since", s, err)
		}
	}
}

func TestNewDetectOptions(t *testing.T) {
	for _, me := range []string{"5%", "0.05", " 5% "} {
		o, err := NewDetectOptions(me, 0.01, 3)
		if err != nil || o.MinEffect != 0.05 || o.Alpha != 0.01 || o.MinSegment != 3 {
			t.Errorf("--min-effect %q: %+v, %v", me, o, err)
		}
	}
	for _, c := range []struct {
		me    string
		alpha float64
		runs  int
		want  string
	}{
		{"100%", 0.01, 3, "--min-effect \"100%\" is not a shift between 0% and 100%"},
		{"-1%", 0.01, 3, "--min-effect"},
		{"x", 0.01, 3, "--min-effect"},
		{"5%", 0, 3, "--alpha 0 must be between 0 and 1"},
		{"5%", 1, 3, "--alpha 1 must be between 0 and 1"},
		{"5%", 0.01, 1, "--min-runs 1 must be at least 2"},
	} {
		if _, err := NewDetectOptions(c.me, c.alpha, c.runs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c, err, c.want)
		}
	}
}
