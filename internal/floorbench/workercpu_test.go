package floorbench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"

	"github.com/google/pprof/profile"

	"rumbench/internal/workload/ibench"
)

// profileHz is the rate profileWorkers samples at: 2.5 times pprof's default,
// and the most a thread's CPU timer gives on a kernel ticking at 250 Hz
// (Debian's): asked for 500 Hz, the kernel here fired half as often, and
// the samples, counted at 2 ms each, added up to half of getrusage's CPU.
const profileHz = 250

// workerCPU is what a CPU profile of a run saw: by the value of the
// ibench.WorkerLabel label of the goroutines sampled, their CPU µs, and
// the CPU µs of every sample (labelled or not), beside getrusage's over
// the same window. The figures are sample counts times the sampling
// period: compare them with each other, and total with rusage for their
// accuracy.
type workerCPU struct {
	byWorker      map[string]float64
	total, rusage float64
	// in is, per name of the calls profileWorkers was given, the query
	// workers' CPU µs in those calls (the samples labelled worker=query
	// with a frame of a function whose name starts with one of the
	// calls' prefixes): in rumbench's run the kv layer's model calls
	// (Scan, Get) without the worker's own loop around them, and the
	// store's calls within them; in the replay the store's calls without
	// the player's.
	in map[string]float64
}

// profileWorkers runs fn under a CPU profile: the query step's workers
// (and what they start) carry the label in rumbench's run, the replay's
// querier streams the same one. calls name, by the prefixes of their
// names, the functions whose samples make in. It returns nil, and fn runs
// unprofiled, when a profile runs already (the benchmark's -cpuprofile). With
// FLOOR_PROFILE_DIR set, the profile is also written there, as
// name.pb.gz, for go tool pprof.
func profileWorkers(name string, calls map[string][]string, fn func() error) (*workerCPU, error) {
	// FLOOR_CPUPROFILE=0 leaves the profile out (nil): for a run under a
	// tool that counts instructions, whose signal handling the profiler's
	// SIGPROF breaks (valgrind's callgrind).
	if os.Getenv("FLOOR_CPUPROFILE") == "0" {
		return nil, fn()
	}
	var buf bytes.Buffer
	// The rate must be set before StartCPUProfile, which asks for 100 Hz
	// and (with a warning on stderr) keeps the rate already set. With a
	// profile already running this does nothing but warn either.
	runtime.SetCPUProfileRate(profileHz)
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return nil, fn()
	}
	cpu0 := cpuNow()
	err := fn()
	pprof.StopCPUProfile()
	w := &workerCPU{rusage: cpuNow() - cpu0}
	if err != nil {
		return nil, err
	}
	if dir := os.Getenv("FLOOR_PROFILE_DIR"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name+".pb.gz"), buf.Bytes(), 0o644); err != nil {
			return nil, fmt.Errorf("keep the CPU profile: %w", err)
		}
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		return nil, fmt.Errorf("read the CPU profile: %w", err)
	}
	w.byWorker, w.total = labelledSamples(p, ibench.WorkerLabel, 1e6/profileHz)
	w.in = map[string]float64{}
	for call, prefixes := range calls {
		w.in[call] = samplesIn(p, ibench.WorkerLabel, ibench.WorkerQuery, prefixes, 1e6/profileHz)
	}
	return w, nil
}

// labelledSamples sums p's sample counts (its first value) by the value
// of label, each count worth usPerSample µs, and all of them.
func labelledSamples(p *profile.Profile, label string, usPerSample float64) (map[string]float64, float64) {
	by := map[string]float64{}
	var total float64
	for _, s := range p.Sample {
		us := float64(s.Value[0]) * usPerSample
		total += us
		if v := s.Label[label]; len(v) > 0 {
			by[v[0]] += us
		}
	}
	return by, total
}

// samplesIn sums, in µs, p's samples labelled label=value whose stack
// holds a function (inlined ones included) whose name starts with one of
// prefixes.
func samplesIn(p *profile.Profile, label, value string, prefixes []string, usPerSample float64) float64 {
	var us float64
	for _, s := range p.Sample {
		if v := s.Label[label]; len(v) == 0 || v[0] != value || !stackHas(s, prefixes) {
			continue
		}
		us += float64(s.Value[0]) * usPerSample
	}
	return us
}

func stackHas(s *profile.Sample, prefixes []string) bool {
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			if l.Function == nil {
				continue
			}
			for _, p := range prefixes {
				if strings.HasPrefix(l.Function.Name, p) {
					return true
				}
			}
		}
	}
	return false
}

// TestLabelledSamples: counts times the period, summed by the label's
// value; unlabelled samples count in the total only.
func TestLabelledSamples(t *testing.T) {
	p := &profile.Profile{Sample: []*profile.Sample{
		{Value: []int64{3, 30e6}, Label: map[string][]string{"worker": {"query"}}},
		{Value: []int64{2, 20e6}, Label: map[string][]string{"worker": {"writer"}}},
		{Value: []int64{4, 40e6}, Label: map[string][]string{"worker": {"query"}, "side": {"store"}}},
		{Value: []int64{5, 50e6}},
	}}
	by, total := labelledSamples(p, "worker", 2000)
	if by["query"] != 14000 || by["writer"] != 4000 || len(by) != 2 || total != 28000 {
		t.Errorf("labelledSamples = %v, %v; want query 14000, writer 4000, total 28000", by, total)
	}
}

// TestSamplesIn: only the samples of the label's value with a frame of
// the call count, inlined frames included.
func TestSamplesIn(t *testing.T) {
	fn := func(name string) *profile.Function { return &profile.Function{Name: name} }
	scan, loop, store := fn("rumbench/internal/engine/kv.(*conn).Scan"), fn("rumbench/internal/workload/ibench.(*Bench).queryWorker"), fn("rumbench/internal/engine/kv/pebble.(*iter).Next")
	at := func(fns ...*profile.Function) []*profile.Location {
		loc := &profile.Location{}
		for _, f := range fns {
			loc.Line = append(loc.Line, profile.Line{Function: f})
		}
		return []*profile.Location{loc, {Line: []profile.Line{{Function: loop}}}}
	}
	q := map[string][]string{"worker": {"query"}}
	p := &profile.Profile{Sample: []*profile.Sample{
		{Value: []int64{3}, Label: q, Location: at(store, scan)},                                  // inlined into one location
		{Value: []int64{2}, Label: q, Location: at(loop)},                                         // the loop alone
		{Value: []int64{4}, Label: map[string][]string{"worker": {"writer"}}, Location: at(scan)}, // another worker
		{Value: []int64{5}, Label: q, Location: append(at(store), &profile.Location{Line: []profile.Line{{Function: scan}}})},
	}}
	if got := samplesIn(p, "worker", "query", []string{"rumbench/internal/engine/kv.(*conn)."}, 1000); got != 8000 {
		t.Errorf("in the kv layer's calls: %v µs, want 8000", got)
	}
	if got := samplesIn(p, "worker", "query", []string{"github.com/cockroachdb/pebble", "rumbench/internal/engine/kv/pebble."}, 1000); got != 8000 {
		t.Errorf("in the store's calls: %v µs, want 8000", got)
	}
	if got := samplesIn(p, "worker", "query", []string{"rumbench/internal/workload/"}, 1000); got != 10000 {
		t.Errorf("in the worker's loop: %v µs, want 10000 (every query sample)", got)
	}
}

// TestWorkerCPUSplitsByLabel: of two goroutines spinning at once, the one
// labelled worker=query doing three times the other's work gets about
// three times its samples.
func TestWorkerCPUSplitsByLabel(t *testing.T) {
	spin := func(n int) (x uint64) {
		for i := range n {
			x = x*6364136223846793005 + uint64(i)
		}
		return x
	}
	var sink [2]uint64
	w, err := profileWorkers("split-by-label", nil, func() error {
		var wg sync.WaitGroup
		wg.Go(func() {
			pprof.Do(context.Background(), pprof.Labels(ibench.WorkerLabel, ibench.WorkerQuery), func(context.Context) {
				sink[0] = spin(600_000_000)
			})
		})
		wg.Go(func() {
			pprof.Do(context.Background(), pprof.Labels(ibench.WorkerLabel, "writer"), func(context.Context) {
				sink[1] = spin(200_000_000)
			})
		})
		wg.Wait()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if w == nil {
		t.Skip("a CPU profile runs already")
	}
	q, wr := w.byWorker[ibench.WorkerQuery], w.byWorker["writer"]
	if wr <= 0 || q/wr < 2 || q/wr > 4.5 || q+wr > w.total {
		t.Errorf("query %.0f µs, writer %.0f µs, total %.0f µs (%v): want query about 3× writer, both within the total", q, wr, w.total, sink)
	}
}
