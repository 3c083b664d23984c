package linkbench

import (
	"fmt"
	"math"
	"rumbench/internal/ratesearch"
	"sort"
	"strconv"
	"strings"

	"rumbench/internal/units"
)

// Request types, in LinkBench's names.
const (
	OpGetLinkList  = "get_link_list"
	OpGetNode      = "get_node"
	OpAddLink      = "add_link"
	OpUpdateLink   = "update_link"
	OpUpdateNode   = "update_node"
	OpCountLink    = "count_link"
	OpDeleteLink   = "delete_link"
	OpAddNode      = "add_node"
	OpDeleteNode   = "delete_node"
	OpMultigetLink = "multiget_link"
)

// RequestTypes lists the request types in the order of the default mix.
var RequestTypes = []string{OpGetLinkList, OpGetNode, OpAddLink, OpUpdateLink, OpUpdateNode,
	OpCountLink, OpDeleteLink, OpAddNode, OpDeleteNode, OpMultigetLink}

// PublishedMix is LinkBench's published operation mix as issue 19 quotes
// it, percent. It sums to 99.922, not 100.
var PublishedMix = Mix{50.652, 12.908, 8.988, 8.0, 7.4, 4.878, 2.996, 2.6, 1.0, 0.5}

// DefaultMix is PublishedMix scaled to sum to 100 (each share × 100/99.922,
// at most 0.04 percentage points more), rounded to 1e-4 with the rounding
// remainder on get_link_list.
var DefaultMix = func() Mix {
	var sum float64
	for _, p := range PublishedMix {
		sum += p
	}
	var m Mix
	var acc float64
	for i := len(m) - 1; i > 0; i-- {
		m[i] = units.Round(PublishedMix[i]*100/sum, 4)
		acc += m[i]
	}
	m[0] = units.Round(100-acc, 4)
	return m
}()

// Mix is the percentage of each request type, in RequestTypes order.
type Mix [10]float64

// String renders the mix as --mix takes it.
func (m Mix) String() string {
	parts := make([]string, 0, len(m))
	for i, p := range m {
		parts = append(parts, RequestTypes[i]+"="+strconv.FormatFloat(p, 'g', -1, 64))
	}
	return strings.Join(parts, ",")
}

// ParseMix parses op=pct,... (every op named at most once; unnamed ones are
// 0) and checks that the percentages sum to 100.
func ParseMix(s string) (Mix, error) {
	var m Mix
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		if !ok {
			return m, fmt.Errorf("--mix %q: %q is not op=percent (e.g. --mix get_node=50,add_link=50)", s, part)
		}
		i := indexOf(RequestTypes, name)
		if i < 0 {
			return m, fmt.Errorf("--mix: unknown request type %q: choose from %s", name, strings.Join(RequestTypes, ", "))
		}
		if seen[name] {
			return m, fmt.Errorf("--mix names %s twice", name)
		}
		seen[name] = true
		p, err := strconv.ParseFloat(val, 64)
		if err != nil || p < 0 || p > 100 || math.IsNaN(p) {
			return m, fmt.Errorf("--mix: %s=%s: the percentage must be a number in [0, 100]", name, val)
		}
		m[i] = p
	}
	var sum float64
	for _, p := range m {
		sum += p
	}
	if math.Abs(sum-100) > 1e-6 {
		return m, fmt.Errorf("--mix %q sums to %g, not 100: adjust the percentages", s, sum)
	}
	return m, nil
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// Config sizes a LinkBench run.
type Config struct {
	// Nodes is the number of nodes loaded (LinkBench's maxid1 - 1).
	Nodes int64 `json:"nodes"`
	// LinkTypes is the number of link types; a node's links are spread
	// over them in turn.
	LinkTypes int `json:"link_types"`
	// MaxDegree and DegreeTheta shape the out-degrees: a node has d links
	// with P(d) ∝ 1/(d+1)^θ over [0, MaxDegree].
	MaxDegree   int     `json:"max_degree"`
	DegreeTheta float64 `json:"degree_theta"`
	// Loaders load id ranges in parallel; RowsPerCommit rows per insert.
	Loaders       int `json:"loaders"`
	RowsPerCommit int `json:"rows_per_commit"`
	// Requesters run requests for RequestSeconds, or Requests each when
	// RequestSeconds is 0.
	Requesters     int     `json:"requesters"`
	RequestSeconds float64 `json:"request_seconds"`
	Requests       int64   `json:"requests_per_requester"`
	// RequestRate, when positive, paces each requester (requests/s).
	RequestRate float64 `json:"request_rate"`
	// Arrivals spaces the paced requests' intended starts: "" or "fixed",
	// "poisson" (measure.PoissonArrivals).
	Arrivals string `json:"arrivals,omitempty"`
	// RateSearch (--request-rate max) searches for the highest request
	// rate the engine sustains instead of running at one (ratesearch;
	// the first target is in requests/s over all requesters).
	RateSearch bool `json:"request_rate_search,omitempty"`
	ratesearch.Settings
	Mix     Mix    `json:"-"`
	MixText string `json:"mix"`
	// AccessTheta shapes the Zipf choice of id1 by requests.
	AccessTheta float64 `json:"access_theta"`
	// Payloads: median sizes (log-normal, σ DataSigma) and the percent of
	// random characters (the rest repeats one, so it compresses).
	NodeDataBytes int     `json:"node_data_bytes"`
	LinkDataBytes int     `json:"link_data_bytes"`
	DataSigma     float64 `json:"data_sigma"`
	DataRandomPct int     `json:"data_random_pct"`
	// RangeLimit bounds get_link_list (LinkBench's rangelimit).
	RangeLimit int `json:"range_limit"`
	// MaxRetries bounds the retries of a request after a transient error.
	MaxRetries int   `json:"max_retries"`
	Seed       int64 `json:"seed"`
	// Steps are the steps to run, in order: load, request or both. The
	// request step alone runs on the tables of an earlier load.
	Steps []string `json:"steps"`
}

// StepOrder lists the steps in the order they run.
var StepOrder = []string{StepLoad, StepRequest}

func (c *Config) has(step string) bool { return indexOf(c.Steps, step) >= 0 }

// DefaultConfig is a quick run. Payload medians are LinkBench's FBWorkload
// values (node 128 B, link 8 B).
func DefaultConfig() Config {
	return Config{
		Nodes: 100_000, LinkTypes: 2, MaxDegree: 1000, DegreeTheta: 2,
		Loaders: 2, RowsPerCommit: 1000,
		Requesters: 4, RequestSeconds: 10,
		Mix: DefaultMix, MixText: DefaultMix.String(), AccessTheta: 0.8,
		NodeDataBytes: 128, LinkDataBytes: 8, DataSigma: 1, DataRandomPct: 50,
		RangeLimit: 10000, MaxRetries: 10, Seed: 1, Steps: StepOrder,
	}
}

// Preset is a named run shape; flags given explicitly override it.
type Preset struct {
	Name           string
	Description    string
	Nodes          int64
	RequestSeconds float64
}

// PresetOrder lists the presets as help shows them, the default first.
var PresetOrder = []string{"quick", "small", "reference"}

// Presets are the named shapes.
var Presets = map[string]Preset{
	"quick":     {Name: "quick", Description: "100k nodes, 10 s of requests: a first look", Nodes: 100_000, RequestSeconds: 10},
	"small":     {Name: "small", Description: "1M nodes, 300 s of requests", Nodes: 1_000_000, RequestSeconds: 300},
	"reference": {Name: "reference", Description: "10M nodes, 3600 s of requests: steady-state write amplification", Nodes: 10_000_000, RequestSeconds: 3600},
}

// LookupPreset returns the named preset or a one-line error listing them.
func LookupPreset(name string) (Preset, error) {
	p, ok := Presets[name]
	if !ok {
		names := make([]string, 0, len(Presets))
		for n := range Presets {
			names = append(names, n)
		}
		sort.Strings(names)
		return Preset{}, fmt.Errorf("unknown --preset %q: choose one of %s", name, strings.Join(names, ", "))
	}
	return p, nil
}

// Validate returns a one-line error naming the bad setting and the fix.
func (c *Config) Validate() error {
	if len(c.Steps) == 0 {
		return fmt.Errorf("--steps is empty: give load, request or load,request")
	}
	for i, st := range c.Steps {
		if indexOf(StepOrder, st) < 0 {
			return fmt.Errorf("unknown step %q in --steps: choose from %s", st, strings.Join(StepOrder, ", "))
		}
		if i > 0 && indexOf(StepOrder, st) <= indexOf(StepOrder, c.Steps[i-1]) {
			return fmt.Errorf("--steps must list each step once, in the order %s", strings.Join(StepOrder, ","))
		}
	}
	switch {
	case c.Nodes < 1 || c.Nodes > 1<<40:
		return fmt.Errorf("--nodes must be between 1 and 2^40, got %d", c.Nodes)
	case c.LinkTypes < 1 || c.LinkTypes > 1000:
		return fmt.Errorf("--link-types must be between 1 and 1000, got %d", c.LinkTypes)
	case c.MaxDegree < 0 || int64(c.MaxDegree) >= c.Nodes && c.MaxDegree > 0:
		return fmt.Errorf("--max-degree must be at least 0 and below --nodes (%d), got %d", c.Nodes, c.MaxDegree)
	case !(c.DegreeTheta > 0) || c.DegreeTheta > 100:
		return fmt.Errorf("--degree-theta must be > 0 and at most 100, got %g", c.DegreeTheta)
	case c.Loaders < 1 || c.Loaders > 256:
		return fmt.Errorf("--loaders must be between 1 and 256, got %d", c.Loaders)
	case c.RowsPerCommit < 1 || c.RowsPerCommit > 100_000:
		return fmt.Errorf("--rows-per-commit must be between 1 and 100000, got %d", c.RowsPerCommit)
	case c.Requesters < 1 || c.Requesters > 4096:
		return fmt.Errorf("--requesters must be between 1 and 4096, got %d", c.Requesters)
	case c.RequestSeconds < 0 || math.IsInf(c.RequestSeconds, 0) || math.IsNaN(c.RequestSeconds):
		return fmt.Errorf("--request-seconds must be 0 or positive, got %g", c.RequestSeconds)
	case c.Requests < 0:
		return fmt.Errorf("--requests must be 0 or positive, got %d", c.Requests)
	case c.RateSearch && c.Requests > 0:
		return fmt.Errorf("--request-rate max searches for a rate with probes of --probe-seconds: drop --requests")
	case c.has(StepRequest) && c.RequestSeconds == 0 && c.Requests == 0 && !c.RateSearch:
		return fmt.Errorf("the request step needs --request-seconds or --requests (per requester)")
	case c.RequestSeconds > 0 && c.Requests > 0:
		return fmt.Errorf("give either --request-seconds or --requests, not both")
	case c.RequestRate < 0 || math.IsInf(c.RequestRate, 0) || math.IsNaN(c.RequestRate):
		return fmt.Errorf("--request-rate must be 0 (as fast as possible) or positive, got %g", c.RequestRate)
	case c.Arrivals != "" && c.Arrivals != "fixed" && c.Arrivals != "poisson":
		return fmt.Errorf("bad --arrivals %q: want fixed or poisson", c.Arrivals)
	case c.RequestRate > 0 && c.RequestSeconds == 0:
		return fmt.Errorf("--request-rate needs --request-seconds (a paced step is time-bounded)")
	case c.RateSearch && c.has(StepRequest):
		if err := c.Settings.Validate(); err != nil {
			return err
		}
	case !(c.AccessTheta > 0) || c.AccessTheta > 100:
		return fmt.Errorf("--access-theta must be > 0 and at most 100, got %g", c.AccessTheta)
	case c.NodeDataBytes < 0 || c.NodeDataBytes > 1<<20:
		return fmt.Errorf("--node-data-bytes must be between 0 and 1048576, got %d", c.NodeDataBytes)
	case c.LinkDataBytes < 0 || c.LinkDataBytes > MaxLinkData:
		return fmt.Errorf("--link-data-bytes must be between 0 and %d, got %d", MaxLinkData, c.LinkDataBytes)
	case c.DataSigma < 0 || c.DataSigma > 4:
		return fmt.Errorf("--data-sigma must be between 0 and 4, got %g", c.DataSigma)
	case c.DataRandomPct < 0 || c.DataRandomPct > 100:
		return fmt.Errorf("--data-random-pct must be between 0 and 100, got %d", c.DataRandomPct)
	case c.RangeLimit < 1:
		return fmt.Errorf("--range-limit must be at least 1, got %d", c.RangeLimit)
	case c.MaxRetries < 0 || c.MaxRetries > 1000:
		return fmt.Errorf("--max-retries must be between 0 and 1000, got %d", c.MaxRetries)
	}
	return nil
}

// maxNodeData bounds the node data column: sizes are log-normal around the
// median, clipped here.
func (c *Config) maxNodeData() int { return max(1, min(1<<20, c.NodeDataBytes*16)) }
