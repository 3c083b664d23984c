package ratesearch

import (
	"context"
	"math"
	"rumbench/internal/results"
	"strings"
	"testing"
	"time"
)

// capacity is a test double of an engine that keeps any rate up to cap
// (achieving the target) and falls short above it (achieving only cap),
// with a p99 that grows as the target nears cap.
func capacity(capRate float64) Run {
	return func(_ context.Context, target float64) (results.SearchProbe, error) {
		a := math.Min(target, capRate)
		p99 := int64(1000 + 50000*target/capRate) // 1.05 ms at 0, 51 ms at capacity
		return results.SearchProbe{Achieved: a, P99Us: p99, Seconds: 10}, nil
	}
}

// TestFindsCapacity: on doubles of known capacity the search ends within
// 5% below it, from a start below or above it.
func TestFindsCapacity(t *testing.T) {
	for _, c := range []struct{ capRate, start float64 }{{1234, 100}, {50000, 1000}, {300, 5000}, {1000, 1000}} {
		r, err := Find(context.Background(), Config{Start: c.start}, Rule{}, capacity(c.capRate))
		if err != nil {
			t.Fatal(err)
		}
		// The rule passes a probe up to cap/0.95 (achieved ≥ 95%).
		top := c.capRate / DefaultMinShare
		if !r.Done || r.Sustained > top || r.Sustained < top*0.95 || r.Upper <= r.Sustained {
			t.Errorf("capacity %g from %g: %+v, want sustained within 5%% below %g", c.capRate, c.start, r, top)
		}
		t.Logf("capacity %g from %g: sustained %.1f in %d probes", c.capRate, c.start, r.Sustained, len(r.Probes))
	}
}

// TestSLOBounds: with an SLO the sustained rate is where p99 crosses it.
func TestSLOBounds(t *testing.T) {
	// p99 = 1 ms + 50 ms × target/cap: 26 ms at half the capacity.
	r, err := Find(context.Background(), Config{Start: 100}, Rule{SLOP99: 26 * time.Millisecond}, capacity(10000))
	if err != nil {
		t.Fatal(err)
	}
	if r.Sustained > 5000 || r.Sustained < 5000*0.95 {
		t.Errorf("sustained %g, want within 5%% below 5000 (p99 26 ms)", r.Sustained)
	}
	for _, p := range r.Probes {
		if !p.Pass && p.Achieved >= p.Target && !strings.Contains(p.Why, "over the SLO") {
			t.Errorf("probe %+v failed without the SLO's reason", p)
		}
	}
}

// TestStallFails: a probe with a stalled interval fails even at its rate.
func TestStallFails(t *testing.T) {
	var p = results.SearchProbe{Target: 100, Achieved: 100, Stalled: 1}
	Rule{}.Judge(&p)
	if p.Pass || !strings.Contains(p.Why, "stalled") {
		t.Errorf("%+v", p)
	}
}

// TestNothingPasses and limits: an engine that keeps nothing ends with no
// sustained rate and says so; probes running out end with the bracket.
func TestNothingPassesAndLimits(t *testing.T) {
	r, err := Find(context.Background(), Config{Start: 100}, Rule{}, func(context.Context, float64) (results.SearchProbe, error) { return results.SearchProbe{}, nil })
	if err != nil || r.Sustained != 0 || r.Why != "no probe passed" {
		t.Errorf("nothing passes: %+v %v", r, err)
	}
	r, err = Find(context.Background(), Config{Start: 100, MaxProbes: 3}, Rule{}, capacity(1e6))
	if err != nil || r.Done || r.Sustained != 400 || !strings.Contains(r.Why, "3 probes") {
		t.Errorf("3 probes: %+v %v", r, err)
	}
	if _, err := Find(context.Background(), Config{}, Rule{}, capacity(1)); err == nil {
		t.Error("start 0 accepted")
	}
}

// TestOnlyOneProbe: --probe-rate judges one target by the same rule.
func TestOnlyOneProbe(t *testing.T) {
	for _, c := range []struct {
		target float64
		pass   bool
	}{{900, true}, {1500, false}} {
		r, err := Find(context.Background(), Config{Start: 1, Only: c.target}, Rule{}, capacity(1000))
		if err != nil || len(r.Probes) != 1 || r.Probes[0].Pass != c.pass || (r.Sustained == c.target) != c.pass {
			t.Errorf("one probe at %g of a 1000/s engine: %+v %v, want pass %v", c.target, r, err, c.pass)
		}
	}
}
