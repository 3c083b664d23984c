package linkbench

import (
	"math"
	"strings"
	"testing"

	"rumbench/internal/gen"
)

// TestMixWithinHalfPoint: 100k generated request types match the configured
// mix within 0.5 percentage points each (generation only, no engine).
func TestMixWithinHalfPoint(t *testing.T) {
	for _, m := range []Mix{DefaultMix, {1: 50, 9: 50}} {
		cum := cumulative(m)
		var r gen.Rand
		r.Seed(1, 2)
		const n = 100_000
		var got [len(Mix{})]int
		for i := 0; i < n; i++ {
			got[pickType(&r, &cum)]++
		}
		for i, want := range m {
			pct := float64(got[i]) * 100 / n
			if math.Abs(pct-want) > 0.5 {
				t.Errorf("%s: %.3f%% of requests, configured %.3f%%", RequestTypes[i], pct, want)
			}
		}
	}
}

func TestDefaultMixIsPublished(t *testing.T) {
	var sum float64
	for i, p := range DefaultMix {
		sum += p
		if math.Abs(p-PublishedMix[i]) > 0.05 {
			t.Errorf("%s: default %g, published %g", RequestTypes[i], p, PublishedMix[i])
		}
	}
	if math.Abs(sum-100) > 1e-9 {
		t.Errorf("default mix sums to %g", sum)
	}
	m, err := ParseMix(DefaultMix.String())
	if err != nil || m != DefaultMix {
		t.Errorf("ParseMix(DefaultMix.String()) = %v, %v", m, err)
	}
}

func TestParseMixErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"get_node=50,add_link=40", "sums to 90, not 100"},
		{"get_node=50,bogus=50", `unknown request type "bogus"`},
		{"get_node=50,get_node=50", "names get_node twice"},
		{"get_node", "is not op=percent"},
		{"get_node=x,add_link=100", "must be a number"},
		{"get_node=-5,add_link=105", "must be a number in [0, 100]"},
	} {
		_, err := ParseMix(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseMix(%q) = %v, want one line containing %q", tc.in, err, tc.want)
		}
	}
	m, err := ParseMix("get_node=50, add_link=50")
	if err != nil || m[1] != 50 || m[2] != 50 {
		t.Errorf("ParseMix of a valid mix: %v %v", m, err)
	}
}

// TestGraphDeterministic: the load's rows depend on the seed and id only,
// out-degrees follow the power law's shape, and link targets are distinct.
func TestGraphDeterministic(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Nodes = 10_000
	g1, g2 := newGraph(&cfg), newGraph(&cfg)
	cfg3 := cfg
	cfg3.Seed = 2
	g3 := newGraph(&cfg3)
	var total, zero, diff int
	for id := int64(1); id <= cfg.Nodes; id++ {
		d := g1.degree(id)
		if d != g2.degree(id) {
			t.Fatalf("degree of %d differs between two graphs of one seed", id)
		}
		if d != g3.degree(id) {
			diff++
		}
		if d < 0 || d > cfg.MaxDegree {
			t.Fatalf("degree %d out of range", d)
		}
		if d == 0 {
			zero++
		}
		total += d
		seen := map[int64]bool{}
		for k := 0; k < d; k++ {
			id2 := g1.id2(id, k)
			if id2 < 1 || id2 > cfg.Nodes || id2 == id || seen[id2] {
				t.Fatalf("link %d of %d: id2 %d (out of range, self or repeated)", k, id, id2)
			}
			seen[id2] = true
		}
	}
	avg := float64(total) / float64(cfg.Nodes)
	// θ=2 over [0, 1000]: P(0) = 1/ζ(2) ≈ 0.61, mean ≈ 3.5.
	if zero < 5500 || zero > 6600 || avg < 2 || avg > 6 {
		t.Errorf("out-degrees: %d of %d nodes have none, mean %.2f", zero, cfg.Nodes, avg)
	}
	if diff == 0 {
		t.Error("another seed gives the same out-degrees")
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		mod  func(c *Config)
		want string
	}{
		{func(c *Config) { c.Nodes = 0 }, "--nodes"},
		{func(c *Config) { c.RequestSeconds, c.Requests = 0, 0 }, "needs --request-seconds or --requests"},
		{func(c *Config) { c.Requests = 5 }, "not both"},
		{func(c *Config) { c.LinkDataBytes = 300 }, "--link-data-bytes"},
		{func(c *Config) { c.Steps = []string{"request", "load"} }, "in the order"},
		{func(c *Config) { c.Steps = []string{"nope"} }, "unknown step"},
		{func(c *Config) { c.RequestSeconds, c.Requests, c.RequestRate = 0, 10, 5 }, "--request-rate needs --request-seconds"},
		{func(c *Config) { c.Arrivals = "uniform" }, "bad --arrivals \"uniform\""},
	} {
		c := DefaultConfig()
		tc.mod(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate = %v, want %q", err, tc.want)
		}
	}
	c := DefaultConfig()
	c.Steps, c.RequestSeconds = []string{StepLoad}, 0
	if err := c.Validate(); err != nil {
		t.Errorf("load only: %v", err)
	}
}

// The requests are judged (rate percentile, stalls, per-request cost); the
// request types, random shares of them, keep count and latency only.
func TestRequestTypesAreParts(t *testing.T) {
	if !ops[opRequest].Judged() {
		t.Error("request is not judged")
	}
	for _, name := range RequestTypes {
		spec := ops[ops.Must(name)]
		if spec.Judged() || spec.PartOf != OpRequest {
			t.Errorf("%s: judged %v, part of %q; want a part of %s, not judged", name, spec.Judged(), spec.PartOf, OpRequest)
		}
	}
}

// TestRequestRateFlag: --request-rate takes a rate or max; anything else
// is refused naming both.
func TestRequestRateFlag(t *testing.T) {
	c := DefaultConfig()
	f := rateFlag{&c}
	if err := f.Set("max"); err != nil || !c.RateSearch || f.String() != "max" {
		t.Errorf("max: %v %+v", err, c.RateSearch)
	}
	if err := f.Set("250"); err != nil || c.RateSearch || c.RequestRate != 250 || f.String() != "250" {
		t.Errorf("250: %v %v %v", err, c.RateSearch, c.RequestRate)
	}
	if err := f.Set("fast"); err == nil || !strings.Contains(err.Error(), "or max") {
		t.Errorf("fast: %v", err)
	}
	c.RateSearch, c.Requests, c.RequestSeconds = true, 10, 0
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "drop --requests") {
		t.Errorf("max with --requests: %v", err)
	}
}
