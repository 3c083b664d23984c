package history

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseSince reads a --since: a date, an RFC 3339 time, or an age before
// now (36h, 7d).
func ParseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.ParseFloat(days, 64); err == nil && n >= 0 {
			return now.Add(-time.Duration(n * 24 * float64(time.Hour))), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q is not a date (2026-01-31), an RFC 3339 time (2026-01-31T12:00:00Z) or an age (36h, 7d)", s)
}

// NewDetectOptions checks the detector's settings as given (--min-effect
// as a percentage, 5%, or a fraction, 0.05; --alpha; --min-runs).
func NewDetectOptions(minEffect string, alpha float64, minSegment int) (DetectOptions, error) {
	o := DetectOptions{Alpha: alpha, MinSegment: minSegment}
	s := strings.TrimSpace(minEffect)
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if pct {
		v /= 100
	}
	if err != nil || v < 0 || v >= 1 {
		return o, fmt.Errorf("--min-effect %q is not a shift between 0%% and 100%% (e.g. 5%% or 0.05)", minEffect)
	}
	o.MinEffect = v
	if alpha <= 0 || alpha >= 1 {
		return o, fmt.Errorf("--alpha %g must be between 0 and 1 (e.g. 0.01)", alpha)
	}
	if minSegment < 2 {
		return o, fmt.Errorf("--min-runs %d must be at least 2: a side of one run has no variance", minSegment)
	}
	return o, nil
}
