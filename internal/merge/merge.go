// Package merge makes one run bundle of the bundles the shards of a sharded
// run wrote (--shard i/N): counts and rates add, latency histograms merge
// exactly, intervals add by their index (the shards' intervals share
// boundaries: every step's clock started at the time they agreed on), and
// figures measured per host stay per host.
package merge

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"rumbench/internal/measure"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/workload"
)

// Details keys a merged step adds.
const (
	// DetailShardValues holds, per Details key whose value differed among
	// the shards and does not add up, every shard's value (by shard).
	DetailShardValues = "shard_values"
	// DetailShardMetrics holds every shard's own system metrics with its
	// host: the client's CPU is per shard, the server's only where a
	// shard ran on the server's host.
	DetailShardMetrics = "shard_metrics"
	// DetailStartSpreadMs is how far apart (ms, by each host's clock) the
	// shards' first intervals of the step started.
	DetailStartSpreadMs = "shard_start_spread_ms"
)

// serverProcessSet is how sysmetrics names a process set that is the
// server's process tree (a shard on the server's host).
const serverProcessSet = "server process tree"

// Find returns the shard bundles under dirs by engine: each dir is a
// bundle (with run.json) or a run's --out directory (one bundle per engine).
func Find(dirs []string) (map[string][]*results.Bundle, error) {
	out := map[string][]*results.Bundle{}
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil {
			return nil, fmt.Errorf("%s: no such directory: name the --out directory of each shard", d)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s is not a directory: name the --out directory of each shard (or its engine's bundle)", d)
		}
		var bundleDirs []string
		if _, err := os.Stat(filepath.Join(d, results.RunFile)); err == nil {
			bundleDirs = []string{d}
		} else {
			entries, err := os.ReadDir(d)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", d, err)
			}
			for _, e := range entries {
				if _, err := os.Stat(filepath.Join(d, e.Name(), results.RunFile)); e.IsDir() && err == nil {
					bundleDirs = append(bundleDirs, filepath.Join(d, e.Name()))
				}
			}
		}
		if len(bundleDirs) == 0 {
			return nil, fmt.Errorf("%s holds no run bundle (no %s in it or its subdirectories): name the --out directory of each shard", d, results.RunFile)
		}
		for _, bd := range bundleDirs {
			b, err := results.Read(bd)
			if err != nil {
				return nil, err
			}
			if b.Run.Shard == nil {
				return nil, fmt.Errorf("%s is not a shard's bundle (run.json has no shard): merge takes the bundles of `rumbench run --shard i/N`", bd)
			}
			out[b.Run.Engine.Name] = append(out[b.Run.Engine.Name], b)
		}
	}
	return out, nil
}

// Check verifies that shards are the N shards of one run, each once, and
// returns them ordered by index.
func Check(shards []*results.Bundle) ([]*results.Bundle, error) {
	first := shards[0].Run.Shard
	byIndex := map[int]*results.Bundle{}
	for _, b := range shards {
		s := b.Run.Shard
		if s.RunID != first.RunID || s.Count != first.Count {
			return nil, fmt.Errorf("%s is shard %d/%d of run %s, but %s is shard %d/%d of run %s: merge the shards of one run only", b.Dir, s.Index, s.Count, s.RunID, shards[0].Dir, first.Index, first.Count, first.RunID)
		}
		if prev, ok := byIndex[s.Index]; ok {
			return nil, fmt.Errorf("shard %d/%d is given twice (%s and %s): give each shard's bundle once", s.Index, s.Count, prev.Dir, b.Dir)
		}
		byIndex[s.Index] = b
	}
	var missing []string
	out := make([]*results.Bundle, first.Count)
	for i := range out {
		if out[i] = byIndex[i]; out[i] == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", i, first.Count))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("shard %s of run %s is missing: give the --out directory of every shard (a run's figures need all of them)", strings.Join(missing, ", "), first.RunID)
	}
	return out, nil
}

// Write merges the shards of one engine's run (Check's order) into a new
// bundle in dir.
func Write(dir string, shards []*results.Bundle) error {
	run := mergeRun(shards)
	w, err := results.Create(dir)
	if err != nil {
		return err
	}
	defer w.Close()
	var additive []string
	if def, err := workload.Lookup(run.Workload); err == nil {
		additive = def.AdditiveDetails
	}
	once := map[string]bool{}
	for _, s := range shards[0].Run.Shard.OnceSteps {
		once[s] = true
	}
	for _, name := range stepNames(shards) {
		var sum *results.Step
		var ivs []*results.IntervalRecord
		if once[name] {
			sum, ivs = onceStep(shards[0], name)
		} else {
			sum, ivs, err = mergeStep(run, shards, name, additive)
			if err != nil {
				return fmt.Errorf("step %s: %w", name, err)
			}
		}
		if sum == nil {
			continue
		}
		for _, iv := range ivs {
			if err := w.AppendInterval(iv); err != nil {
				return err
			}
		}
		if err := w.WriteStep(sum); err != nil {
			return err
		}
	}
	if err := w.WriteRun(run); err != nil {
		return err
	}
	return w.Close()
}

// mergeRun is the merged run.json: shard 0's, with the shards' span,
// tables and notes, and where it came from.
func mergeRun(shards []*results.Bundle) *results.Run {
	r := shards[0].Run
	r.Shard = nil
	m := &results.Merged{RunID: shards[0].Run.Shard.RunID, Count: len(shards)}
	tables := map[string]bool{}
	notes := map[string]bool{}
	r.Tables, r.Notes = nil, nil
	r.Complete = true
	for _, b := range shards {
		s := b.Run
		m.Shards = append(m.Shards, results.MergedShard{Index: s.Shard.Index, Dir: b.Dir, Host: s.Host.Hostname, Complete: s.Complete})
		if s.StartedAt.Before(r.StartedAt) {
			r.StartedAt = s.StartedAt
		}
		if s.FinishedAt == nil {
			r.FinishedAt = nil
		} else if r.FinishedAt != nil && s.FinishedAt.After(*r.FinishedAt) {
			t := *s.FinishedAt
			r.FinishedAt = &t
		}
		r.Complete = r.Complete && s.Complete
		for _, t := range s.Tables {
			if !tables[t] {
				tables[t] = true
				r.Tables = append(r.Tables, t)
			}
		}
		for _, n := range s.Notes {
			if !notes[n] {
				notes[n] = true
				r.Notes = append(r.Notes, n)
			}
		}
	}
	sort.Slice(r.Tables, func(i, j int) bool {
		a, b := r.Tables[i], r.Tables[j]
		if len(a) != len(b) {
			return len(a) < len(b) // pi2 before pi10
		}
		return a < b
	})
	r.MergedFrom = m
	r.Notes = append(r.Notes, fmt.Sprintf("merged from %d shards of run %s (rumbench merge): counts add, latencies are the merged histograms; system metrics are the server's from a shard on its host (details.shard_metrics has every shard's)", len(shards), m.RunID))
	return &r
}

// stepNames are the steps any shard has, in run order.
func stepNames(shards []*results.Bundle) []string {
	var out []string
	seen := map[string]bool{}
	for _, b := range shards {
		for _, s := range b.StepNames() {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	order := map[string]int{}
	for i, s := range shards[0].Run.Steps {
		order[s] = i + 1
	}
	sort.SliceStable(out, func(i, j int) bool {
		oi, oj := order[out[i]], order[out[j]]
		if oi == 0 || oj == 0 {
			return oi != 0 && oj == 0
		}
		return oi < oj
	})
	return out
}

// onceStep is a step shard 0 ran alone: its summary and intervals as they
// are.
func onceStep(b *results.Bundle, name string) (*results.Step, []*results.IntervalRecord) {
	sum := b.Steps[name]
	if sum == nil {
		return nil, nil
	}
	var ivs []*results.IntervalRecord
	for i := range b.Intervals {
		if b.Intervals[i].Step == name {
			ivs = append(ivs, &b.Intervals[i])
		}
	}
	return sum, ivs
}

// mergedInterval is one interval index of a step over all shards.
type mergedInterval struct {
	index   int
	startMs int64
	seconds float64
	warmup  bool
	ops     map[string]*measure.OpInterval
	system  map[string]any
}

// mergeStep adds up the shards' intervals of step by index and
// summarizes them as the runner would have the intervals of one process.
func mergeStep(run *results.Run, shards []*results.Bundle, name string, additive []string) (*results.Step, []*results.IntervalRecord, error) {
	var parts []*results.Step
	var have []*results.Bundle
	for _, b := range shards {
		if s := b.Steps[name]; s != nil {
			parts = append(parts, s)
			have = append(have, b)
		}
	}
	if len(parts) == 0 {
		return nil, nil, nil
	}
	metricsFrom := serverShard(have, name)
	byIndex := map[int]*mergedInterval{}
	firstStart := map[int]int64{} // shard -> start_ms of its first interval
	for _, b := range have {
		for _, rec := range b.Intervals {
			if rec.Step != name {
				continue
			}
			if _, ok := firstStart[b.Run.Shard.Index]; !ok {
				firstStart[b.Run.Shard.Index] = rec.StartMs
			}
			mi := byIndex[rec.Index]
			if mi == nil {
				mi = &mergedInterval{index: rec.Index, startMs: rec.StartMs, ops: map[string]*measure.OpInterval{}}
				byIndex[rec.Index] = mi
			}
			mi.startMs = min(mi.startMs, rec.StartMs)
			mi.seconds = max(mi.seconds, rec.Seconds)
			mi.warmup = mi.warmup || rec.Warmup
			if b == metricsFrom {
				mi.system = rec.System
			}
			for op, r := range rec.Ops {
				o := mi.ops[op]
				if o == nil {
					o = &measure.OpInterval{Hist: measure.NewHistogram()}
					mi.ops[op] = o
				}
				o.Ops += r.Ops
				o.Rows += r.Rows
				o.Errors += r.Errors
				h, err := decodeHist(r.Hist)
				if err != nil {
					return nil, nil, fmt.Errorf("%s: interval %d, operation %s: %w", b.Dir, rec.Index, op, err)
				}
				o.Hist.Merge(h)
			}
		}
	}
	indexes := make([]int, 0, len(byIndex))
	for i := range byIndex {
		indexes = append(indexes, i)
	}
	sort.Ints(indexes)

	desc := mergeDesc(parts)
	sum0 := parts[0]
	interval := time.Duration(sum0.Interval * float64(time.Second))
	var recs []*results.IntervalRecord
	clock := measure.NewClock(interval, run.Ops, func(iv *measure.Interval) {
		rec := results.EncodeInterval(name, iv)
		if mi := byIndex[iv.Index]; mi != nil {
			// The merged interval's own start (the clock's is the sum of
			// the lengths before it).
			rec.StartMs = mi.startMs
			rec.System = mi.system
		}
		recs = append(recs, rec)
	})
	clock.SetWarmup(time.Duration(desc.WarmupS * float64(time.Second)))
	start := sum0.Started
	if len(indexes) > 0 {
		start = time.UnixMilli(byIndex[indexes[0]].startMs)
		// Started is the measured start: the clock's start is a warm-up
		// earlier.
	} else {
		start = start.Add(-clock.Warmup())
	}
	clock.StartAt(start)
	rec := clock.Recorder()
	now := start
	next := 0 // the clock's own interval index
	for _, i := range indexes {
		mi := byIndex[i]
		for ; next < i; next++ {
			// An index no shard logged (cannot happen while shards log
			// every interval): an empty interval keeps the indexes.
			now = now.Add(interval)
			clock.Tick(now)
		}
		for op, o := range mi.ops {
			k, ok := run.Ops.Lookup(op)
			if !ok {
				return nil, nil, fmt.Errorf("operation %s is not among the run's operations", op)
			}
			rec.Add(k, o.Ops, o.Rows, o.Errors, o.Hist)
		}
		now = now.Add(time.Duration(mi.seconds * float64(time.Second)))
		clock.Tick(now)
		next++
	}
	clock.StopAt(now)
	sum := runner.SummarizeAt(name, desc, clock, sum0.RatePercentile)
	sum.Started = sum0.Started
	sum.Complete = true
	sum.EngineSize = -1
	var errs []string
	var lastEnd time.Time
	for i, p := range parts {
		if p.Started.Before(sum.Started) {
			sum.Started = p.Started
		}
		sum.Complete = sum.Complete && p.Complete
		sum.CachesDropped = sum.CachesDropped || p.CachesDropped
		if p.Error != "" {
			errs = append(errs, fmt.Sprintf("shard %d: %s", have[i].Run.Shard.Index, p.Error))
		}
		// Server-wide figures read at the end of the step: the shard that
		// ended last saw the step's whole work.
		if end := p.Started.Add(time.Duration(p.Seconds * float64(time.Second))); !end.Before(lastEnd) {
			lastEnd = end
			sum.EngineSize = p.EngineSize
			sum.EngineStats = p.EngineStats
		}
	}
	if len(parts) < len(shards) {
		sum.Complete = false
		errs = append(errs, fmt.Sprintf("only %d of %d shards ran this step", len(parts), len(shards)))
	}
	sum.Error = strings.Join(errs, "; ")
	sum.Details = mergeDetails(parts, have, additive)
	if len(firstStart) > 1 {
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, ms := range firstStart {
			lo, hi = min(lo, ms), max(hi, ms)
		}
		sum.Details[DetailStartSpreadMs] = hi - lo
	}
	runner.PromoteDetails(sum)
	sum.Metrics = mergeMetrics(sum, parts, have, metricsFrom)
	return sum, recs, nil
}

func decodeHist(s string) (*hdr.Histogram, error) {
	if s == "" {
		return nil, nil
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	h, err := hdr.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return h, nil
}

// mergeDesc is the whole run's step description: the shards' planned work
// adds, and a paced operation's batches come as often as all shards'
// together (1/period adds).
func mergeDesc(parts []*results.Step) results.StepDesc {
	d := parts[0].StepDesc
	d.Work = 0
	perSec := map[string]float64{}
	for _, p := range parts {
		d.Work += p.Work
		for op, period := range p.OpPeriodS {
			if period > 0 {
				perSec[op] += 1 / period
			}
		}
	}
	if len(perSec) > 0 {
		d.OpPeriodS = map[string]float64{}
		for op, f := range perSec {
			d.OpPeriodS[op] = 1 / f
		}
	}
	return d
}

// mergeDetails sums the additive keys, keeps the others the shards agree
// on, and keeps every shard's value of the others under shard_values.
func mergeDetails(parts []*results.Step, have []*results.Bundle, additive []string) map[string]any {
	add := map[string]bool{results.DetailLogicalBytesInserted: true, results.DetailLogicalLiveBytes: true, results.DetailEngineRetries: true}
	for _, k := range additive {
		add[k] = true
	}
	keys := map[string]bool{}
	for _, p := range parts {
		for k := range p.Details {
			keys[k] = true
		}
	}
	out := map[string]any{}
	differ := map[string]map[string]any{}
	for k := range keys {
		vals := make([]any, len(parts))
		for i, p := range parts {
			vals[i] = p.Details[k]
		}
		if add[k] {
			if s, ok := sumNumbers(vals); ok {
				out[k] = s
				continue
			}
		}
		same := true
		for _, v := range vals[1:] {
			same = same && reflect.DeepEqual(v, vals[0])
		}
		if same {
			out[k] = vals[0]
			continue
		}
		per := map[string]any{}
		for i, v := range vals {
			per[fmt.Sprint(have[i].Run.Shard.Index)] = v
		}
		differ[k] = per
	}
	if len(differ) > 0 {
		out[DetailShardValues] = differ
	}
	return out
}

// sumNumbers adds JSON numbers (float64 as read back); a missing value
// counts 0.
func sumNumbers(vals []any) (any, bool) {
	var s float64
	for _, v := range vals {
		switch x := v.(type) {
		case nil:
		case float64:
			s += x
		case int64:
			s += float64(x)
		case int:
			s += float64(x)
		default:
			return nil, false
		}
	}
	if s == math.Trunc(s) && math.Abs(s) < 1<<53 {
		return int64(s), true
	}
	return s, true
}

// serverShard is the shard whose step metrics are the server's (it ran
// on the server's host), the lowest such; nil when none did.
func serverShard(have []*results.Bundle, step string) *results.Bundle {
	for _, b := range have {
		if s := b.Steps[step]; s != nil && s.Metrics != nil && strings.HasPrefix(s.Metrics.ProcessSet, serverProcessSet) {
			return b
		}
	}
	return nil
}

// shardMetrics is one shard's own metrics in a merged step's details.
type shardMetrics struct {
	Shard   int              `json:"shard"`
	Host    string           `json:"host"`
	Metrics *results.Metrics `json:"metrics"`
}

// mergeMetrics is the merged step's system metrics: the server's (CPU,
// IO, memory, size) from the shard on its host, with every per-operation
// figure divided by the merged counts; the client's CPU summed over the
// shards. Without a shard on the server's host the server's figures are
// null with the reason. Every shard's own metrics go to
// details.shard_metrics.
func mergeMetrics(sum *results.Step, parts []*results.Step, have []*results.Bundle, from *results.Bundle) *results.Metrics {
	var per []shardMetrics
	var client int64
	clientOK := true
	for i, p := range parts {
		per = append(per, shardMetrics{Shard: have[i].Run.Shard.Index, Host: have[i].Run.Host.Hostname, Metrics: p.Metrics})
		if p.Metrics == nil || p.Metrics.ClientCPUUs == nil {
			clientOK = false
			continue
		}
		client += *p.Metrics.ClientCPUUs
	}
	// Through JSON, as a reader of the bundle sees it.
	if raw, err := json.Marshal(per); err == nil {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			sum.Details[DetailShardMetrics] = v
		}
	}
	m := &results.Metrics{NullReasons: map[string]string{}}
	if from != nil {
		src := from.Steps[sum.Step].Metrics
		raw, err := json.Marshal(src)
		if err == nil {
			json.Unmarshal(raw, m)
		}
		if m.NullReasons == nil {
			m.NullReasons = map[string]string{}
		}
		m.ProcessSet = fmt.Sprintf("%s (from shard %d on host %s)", src.ProcessSet, from.Run.Shard.Index, from.Run.Host.Hostname)
		// The other shards on the server's host were "other processes"
		// to it: they are the run's clients, not noise.
		if m.OtherCPUUs != nil {
			other := *m.OtherCPUUs
			for i, p := range parts {
				if have[i] != from && have[i].Run.Host.Hostname == from.Run.Host.Hostname && p.Metrics != nil && p.Metrics.ClientCPUUs != nil {
					other -= *p.Metrics.ClientCPUUs
				}
			}
			other = max(other, 0)
			m.OtherCPUUs = &other
			if m.NoiseSpanS != nil && *m.NoiseSpanS > 0 {
				c := round4(float64(other) / 1e6 / *m.NoiseSpanS)
				m.OtherCPUCores = &c
			}
		}
	} else {
		var hosts []string
		for _, b := range have {
			hosts = append(hosts, b.Run.Host.Hostname)
		}
		why := fmt.Sprintf("no shard ran on the server's host (shards on %s): the server's /proc counters were not read; details.shard_metrics has each shard's own figures", strings.Join(hosts, ", "))
		for _, k := range []string{"cpu_us", "cs", "dev_reads", "dev_writes", "dev_rkb", "dev_wkb", "dev_discards", "dev_discard_kb", "proc_rkb", "proc_wkb", "size_bytes", "pss_bytes"} {
			m.NullReasons[k] = why
		}
		m.ProcessSet = "none: " + why
	}
	m.ClientCPUUs = nil
	delete(m.NullReasons, "client_cpu_us")
	if clientOK {
		m.ClientCPUUs = &client
		m.ClientCPUSource = "rumbench processes' user+sys CPU, summed over the shards"
	} else {
		m.NullReasons["client_cpu_us"] = "a shard's client CPU was not measured (see details.shard_metrics)"
	}
	perOp(m, sum)
	amplification(m, sum)
	if len(m.NullReasons) == 0 {
		m.NullReasons = nil
	}
	return m
}

// perOp divides the step's totals by the merged counts, as sysmetrics
// does for one process (docs/metrics.md).
func perOp(m *results.Metrics, sum *results.Step) {
	div := func(v *float64, n int64) *float64 {
		if v == nil || n <= 0 {
			return nil
		}
		x := round4(*v / float64(n))
		return &x
	}
	f := func(v *int64) *float64 {
		if v == nil {
			return nil
		}
		x := float64(*v)
		return &x
	}
	m.PerOp = map[string]*results.OpCost{}
	delete(m.NullReasons, "per_op")
	main := sum.Ops[sum.MainOp]
	switch {
	case main == nil:
		m.NullReasons["per_op"] = fmt.Sprintf("the step's main operation %s did not run", sum.MainOp)
	case main.Role == measure.RoleNone:
		m.NullReasons["per_op"] = fmt.Sprintf("the step's main operation %s is neither a read nor a write", sum.MainOp)
	case main.Done() <= 0:
		m.NullReasons["per_op"] = fmt.Sprintf("no %s completed", sum.MainOp)
	default:
		n := main.Done()
		m.PerOp[sum.MainOp] = &results.OpCost{CPUUs: div(f(m.CPUUs), n), WKB: div(m.DevWKB, n), RKB: div(m.DevRKB, n),
			Reads: div(f(m.DevReads), n), CS: div(f(m.ContextSwitches), n), ClientCPUUs: div(f(m.ClientCPUUs), n)}
	}
	for name, o := range sum.Ops {
		if name == sum.MainOp || o.Role != measure.RoleWrite || o.Done() <= 0 {
			continue
		}
		m.PerOp[name] = &results.OpCost{WKB: div(m.DevWKB, o.Done())}
	}
	m.ClientCPUUsPerOp = nil
	delete(m.NullReasons, "client_cpu_us_per_op")
	if c := m.PerOp[sum.MainOp]; c != nil {
		m.ClientCPUUsPerOp = c.ClientCPUUs
	}
	if m.ClientCPUUsPerOp == nil {
		m.NullReasons["client_cpu_us_per_op"] = "the step's main operation has no per-operation figures, or client CPU was not measured"
	}
	for _, k := range []string{"cpu_us_per_insert", "cs_per_insert", "reads_per_insert", "rkb_per_insert", "cpu_us_per_query", "rkb_per_query"} {
		delete(m.NullReasons, k)
	}
	m.SetLegacyPerOp(sum.MainOp)
}

// amplification recomputes write and space amplification over the merged
// logical bytes (sysmetrics' rules).
func amplification(m *results.Metrics, sum *results.Step) {
	num := func(k string) (int64, bool) {
		switch v := sum.Details[k].(type) {
		case int64:
			return v, true
		case float64:
			return int64(v), true
		}
		return 0, false
	}
	m.LogicalBytesInserted, m.LogicalLiveBytes = nil, nil
	m.WriteAmp, m.SpaceAmp = nil, nil
	logIns, insOK := num(results.DetailLogicalBytesInserted)
	live, liveOK := num(results.DetailLogicalLiveBytes)
	if insOK {
		m.LogicalBytesInserted = &logIns
	}
	if liveOK {
		m.LogicalLiveBytes = &live
	}
	written := m.DevWKB
	if m.WriteAmpSource == "process" || written == nil {
		written, m.WriteAmpSource = m.ProcWKB, "process"
	}
	if m.DevWKB != nil && m.WriteAmpSource != "process" {
		m.WriteAmpSource = "device"
	}
	delete(m.NullReasons, "write_amp")
	switch {
	case !insOK || logIns <= 0:
		m.NullReasons["write_amp"] = "no logical bytes inserted in this step"
	case written == nil:
		m.NullReasons["write_amp"] = "the server's bytes written were not measured"
	default:
		x := round4(*written * 1024 / float64(logIns))
		m.WriteAmp = &x
	}
	if m.WriteAmp == nil {
		m.WriteAmpSource = ""
	}
	delete(m.NullReasons, "space_amp")
	m.SpaceAmpSource = ""
	switch {
	case !liveOK || live <= 0:
		m.NullReasons["space_amp"] = "no live rows"
	case sum.EngineSize < 0:
		m.NullReasons["space_amp"] = "the server engine did not report the size of rumbench's database"
	default:
		x := round4(float64(sum.EngineSize) / float64(live))
		m.SpaceAmp, m.SpaceAmpSource = &x, "engine"
	}
}

// round4 keeps four significant digits, as sysmetrics does.
func round4(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(v))))
	if p < 1 {
		return math.Round(v)
	}
	return math.Round(v*p) / p
}

// ErrExists is wrapped when the output directory already holds a bundle.
var ErrExists = errors.New("already holds results")

// CheckOut refuses an --out that already holds a bundle for an engine.
func CheckOut(out string, engines []string) error {
	for _, e := range engines {
		if _, err := os.Stat(filepath.Join(out, e, results.RunFile)); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s %w for %s: choose another --out (nothing was overwritten)", out, ErrExists, e)
		}
	}
	return nil
}
