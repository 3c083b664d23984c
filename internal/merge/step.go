package merge

import (
	"encoding/base64"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"rumbench/internal/measure"
	"rumbench/internal/results"
	"rumbench/internal/units"
)

// mergedInterval is one interval index of a step over all shards.
type mergedInterval struct {
	index   int
	startMs int64
	seconds float64
	warmup  bool
	ops     map[string]*measure.OpInterval
	system  map[string]any
	// The engine's counters per interval, like system, from the shard
	// the step's metrics come from.
	internals  map[string]float64
	internalsS float64
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
				mi.internals, mi.internalsS = rec.Internals, rec.InternalsSeconds
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
			rec.Internals, rec.InternalsSeconds = mi.internals, mi.internalsS
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
	sum := results.Summarize(name, desc, clock, sum0.RatePercentile)
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
	rowsPerQuery(sum)
	if len(firstStart) > 1 {
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, ms := range firstStart {
			lo, hi = min(lo, ms), max(hi, ms)
		}
		sum.Details[DetailStartSpreadMs] = hi - lo
	}
	sum.PromoteDetails()
	// The shards' targets add up (each paced its own clients' share) and
	// are judged on the merged rates.
	sum.JudgeTargets(results.MergeTargets(parts), run.Ops)
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

// rowsPerQuery recomputes the query steps' rows_per_query over all shards
// from the summed rows_found (ibench records both) and the merged query
// count, instead of keeping each shard's.
func rowsPerQuery(sum *results.Step) {
	found, ok := sum.Details["rows_found"]
	q := sum.Ops["query"]
	if !ok || q == nil || q.Count == 0 {
		return
	}
	f, ok := results.Number(found)
	if !ok {
		return
	}
	sum.Details["rows_per_query"] = units.Round(f/float64(q.Count), 2)
	if per, ok := sum.Details[DetailShardValues].(map[string]map[string]any); ok {
		delete(per, "rows_per_query")
		if len(per) == 0 {
			delete(sum.Details, DetailShardValues)
		}
	}
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
		if v == nil {
			continue
		}
		x, ok := results.Number(v)
		if !ok {
			return nil, false
		}
		s += x
	}
	if s == math.Trunc(s) && math.Abs(s) < 1<<53 {
		return int64(s), true
	}
	return s, true
}
