// Package merge makes one run bundle of the bundles the shards of a sharded
// run wrote (--shard i/N): counts and rates add, latency histograms merge
// exactly, intervals add by their index (the shards' intervals share
// boundaries: every step's clock started at the time they agreed on), and
// figures measured per host stay per host.
package merge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"rumbench/internal/results"
	"rumbench/internal/shard"
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
	// DetailStartCaveat says the shards did not start the step together
	// (their start spread exceeds the barrier's lead).
	DetailStartCaveat = "shard_start_caveat"
)

// Find returns the shard bundles under dirs by variant label (an engine's
// name for a bundle without one): each dir is a bundle (with run.json) or
// a run's --out directory (one bundle per label).
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
			// Keyed by label: two variants of one engine are two runs.
			out[b.Run.VariantLabel()] = append(out[b.Run.VariantLabel()], b)
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
// bundle in dir. Its warnings (one line each) name steps the shards did
// not start together; the bundle records them too (run notes, step
// details).
func Write(dir string, shards []*results.Bundle) (warnings []string, err error) {
	run := mergeRun(shards)
	w, err := results.Create(dir)
	if err != nil {
		return nil, err
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
				return nil, fmt.Errorf("step %s: %w", name, err)
			}
		}
		if sum == nil {
			continue
		}
		if c := startCaveat(sum); c != "" {
			sum.Details[DetailStartCaveat] = c
			run.Notes = append(run.Notes, "step "+name+": "+c)
			warnings = append(warnings, "step "+name+": "+c)
		}
		for _, iv := range ivs {
			if err := w.AppendInterval(iv); err != nil {
				return nil, err
			}
		}
		if err := w.WriteStep(sum); err != nil {
			return nil, err
		}
	}
	if err := w.WriteRun(run); err != nil {
		return nil, err
	}
	return warnings, w.Close()
}

// startCaveat says why a merged step's figures are not one run's when its
// shards started further apart than the barrier's lead (a barrier that
// worked starts them within a few ms): "" when they started together.
func startCaveat(sum *results.Step) string {
	spread, ok := sum.Details[DetailStartSpreadMs].(int64)
	if !ok || spread <= shard.DefaultLead.Milliseconds() {
		return ""
	}
	return fmt.Sprintf("the shards started %d ms apart, more than the barrier's %d ms lead: they did not run the step together, so its merged rates and latencies are not those of one run (clocks of the hosts apart, or a barrier that failed)", spread, shard.DefaultLead.Milliseconds())
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
