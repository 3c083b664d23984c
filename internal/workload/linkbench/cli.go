package linkbench

import (
	"fmt"
	"rumbench/internal/ratesearch"
	"strconv"

	"github.com/spf13/pflag"

	"rumbench/internal/workload"
)

func init() {
	var presets []workload.Preset
	for _, n := range PresetOrder {
		presets = append(presets, workload.Preset{Name: n, Description: Presets[n].Description})
	}
	workload.Register(&workload.Definition{
		Name:        "linkbench",
		Description: "LinkBench-style social graph: nodes, links, counts; bytes written per request (docs/linkbench.md)",
		Long: `LinkBench: tables node, link (PK link_type, id1, id2; covering index id1_type)
and count. Step load inserts --nodes nodes with power-law out-degrees and
their links and count rows (--loaders in parallel by id range,
--rows-per-commit rows per insert). Step request runs --requesters workers for
--request-seconds (or --requests each), each request one transaction, in
LinkBench's published mix (or --mix op=pct,... summing to 100); id1 is drawn
Zipf-like (--access-theta). add/update/delete_link change the link row and
its count row in one transaction. The request step is judged by requests/s;
its CPU, KB written and KB read per request are the published figures, and
its summary has the database size at its start and end.
After a run, rumbench verify --workload linkbench checks counts against links.`,
		Example: `  rumbench run linkbench --engine pebble,sqlite --nodes 100000 --request-seconds 60
  rumbench run linkbench --engine innodb --nodes 1000000 --requesters 8 --mix get_link_list=60,add_link=40`,
		Presets: presets,
		Flags:   addFlags,
		Report:  printReport,
		Verify:  verifyCounts,
		Table:   Table,
		Sweeper: sweeper{},
	})
}

type flagValues struct {
	cfg  Config
	mix  string
	seed int64
}

func addFlags(fl *pflag.FlagSet) workload.Configurer {
	def := DefaultConfig()
	f := &flagValues{cfg: def}
	c := &f.cfg
	// Listed from the preset table, so help says what a run does.
	pd := func(v func(p Preset) string) string {
		return workload.PresetDefaults(PresetOrder, func(n string) string { return v(Presets[n]) })
	}
	fl.Int64Var(&c.Nodes, "nodes", 0, "nodes loaded, LinkBench's maxid1 "+pd(func(p Preset) string { return fmt.Sprint(p.Nodes) }))
	fl.IntVar(&c.LinkTypes, "link-types", def.LinkTypes, "link types; a node's links take them in turn")
	fl.IntVar(&c.MaxDegree, "max-degree", def.MaxDegree, "largest out-degree of a loaded node")
	fl.Float64Var(&c.DegreeTheta, "degree-theta", def.DegreeTheta, "power-law shape of out-degrees: P(d) ∝ 1/(d+1)^θ")
	fl.IntVar(&c.Loaders, "loaders", def.Loaders, "parallel loaders, each a contiguous id range")
	fl.IntVar(&c.RowsPerCommit, "rows-per-commit", def.RowsPerCommit, "rows per insert transaction of the load")
	fl.IntVar(&c.Requesters, "requesters", def.Requesters, "request workers, one connection each")
	fl.Float64Var(&c.RequestSeconds, "request-seconds", 0, "length of the request step, seconds "+pd(func(p Preset) string { return fmt.Sprint(p.RequestSeconds) }))
	fl.Int64Var(&c.Requests, "requests", 0, "requests per requester instead of --request-seconds")
	fl.Var(rateFlag{c}, "request-rate", "requests/s per requester on a schedule (service and response latency); 0 = as fast as possible; max: search for the highest rate the engine sustains (probes paced at rising targets, --probe-seconds each; docs/metrics.md, The highest sustained rate)")
	ratesearch.AddFlags(fl, &c.Settings, "--request-rate max", "requests/s over all requesters", DefaultSearchStart)
	fl.StringVar(&c.Arrivals, "arrivals", "fixed", "how --request-rate spaces the requests' intended starts: fixed (one every period) or poisson (independent arrivals at the same mean rate); response latency is measured from each intended start either way")
	fl.StringVar(&f.mix, "mix", def.MixText, "request mix op=percent,... summing to 100 (types: "+fmt.Sprint(RequestTypes)+")")
	fl.Float64Var(&c.AccessTheta, "access-theta", def.AccessTheta, "Zipf shape of the id1 a request picks (larger is more skewed)")
	fl.IntVar(&c.NodeDataBytes, "node-data-bytes", def.NodeDataBytes, "median node payload, bytes (log-normal, --data-sigma)")
	fl.IntVar(&c.LinkDataBytes, "link-data-bytes", def.LinkDataBytes, "median link payload, bytes (at most 255)")
	fl.Float64Var(&c.DataSigma, "data-sigma", def.DataSigma, "σ of the log-normal payload sizes (0: every payload the median)")
	fl.IntVar(&c.DataRandomPct, "data-random-pct", def.DataRandomPct, "percent of each payload that is random characters; the rest repeats one, so payloads compress")
	fl.IntVar(&c.RangeLimit, "range-limit", def.RangeLimit, "most links a get_link_list returns")
	fl.StringSliceVar(&c.Steps, "steps", def.Steps, "steps to run, in order: load, request (request alone runs on the data dir of an earlier load)")
	fl.IntVar(&c.MaxRetries, "max-retries", def.MaxRetries, "retries of a request after a deadlock, lock wait timeout, serialization failure, busy or duplicate-key error")
	return func(com workload.Common) (*workload.Configured, error) { return f.configure(com) }
}

func (f *flagValues) configure(com workload.Common) (*workload.Configured, error) {
	preset, err := LookupPreset(com.Preset)
	if err != nil {
		return nil, err
	}
	cfg := f.cfg
	if !com.Changed("nodes") {
		cfg.Nodes = preset.Nodes
	}
	if !com.Changed("request-seconds") {
		cfg.RequestSeconds = preset.RequestSeconds
		if com.Changed("requests") {
			cfg.RequestSeconds = 0
		}
	}
	if !com.Changed("max-degree") {
		cfg.MaxDegree = int(min(int64(cfg.MaxDegree), cfg.Nodes-1))
	}
	if com.Warmup > 0 {
		return nil, fmt.Errorf("--warmup is not supported by linkbench yet: remove it (run a longer --request-seconds and read the per-interval write rate)")
	}
	if cfg.Mix, err = ParseMix(f.mix); err != nil {
		return nil, err
	}
	// Recorded in run.json only when they matter.
	if cfg.Arrivals == "fixed" {
		cfg.Arrivals = ""
	}
	if !cfg.RateSearch {
		cfg.Settings = ratesearch.Settings{}
	}
	cfg.MixText = cfg.Mix.String()
	cfg.Seed = com.Seed
	if _, err := New(cfg); err != nil {
		return nil, err
	}
	reqs := fmt.Sprintf("%gs", cfg.RequestSeconds)
	if cfg.RequestSeconds == 0 {
		reqs = fmt.Sprintf("%d requests each", cfg.Requests)
	}
	return &workload.Configured{
		Config: cfg,
		Sizes: map[string]any{"nodes": cfg.Nodes, "requesters": cfg.Requesters, "request_seconds": cfg.RequestSeconds,
			"requests": cfg.Requests, "mix": cfg.MixText, "request_rate": cfg.RequestRate},
		Banner: fmt.Sprintf("%d nodes (%d loaders, %d rows/commit), %d requesters for %s", cfg.Nodes, cfg.Loaders, cfg.RowsPerCommit, cfg.Requesters, reqs),
		New:    func() (workload.Workload, error) { return New(cfg) },
	}, nil
}

// DefaultSearchStart is --request-rate max's first target, requests/s over
// all requesters.
const DefaultSearchStart = 1000

// rateFlag is --request-rate: a rate, or max for the search.
type rateFlag struct{ c *Config }

func (f rateFlag) String() string {
	if f.c == nil {
		return "0"
	}
	if f.c.RateSearch {
		return "max"
	}
	return strconv.FormatFloat(f.c.RequestRate, 'g', -1, 64)
}

func (f rateFlag) Set(s string) error {
	if s == "max" {
		f.c.RateSearch, f.c.RequestRate = true, 0
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("want requests/s per requester, 0, or max")
	}
	f.c.RateSearch, f.c.RequestRate = false, v
	return nil
}

func (rateFlag) Type() string { return "rate|max" }
