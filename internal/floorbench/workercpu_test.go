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

	"rumbench/internal/workload"
	"rumbench/internal/workload/linkbench"
)

// profileHz is the rate profileWorkers samples at: 2.5 times pprof's default,
// and the most a thread's CPU timer gives on a kernel ticking at 250 Hz
// (Debian's): asked for 500 Hz, the kernel here fired half as often, and
// the samples, counted at 2 ms each, added up to half of getrusage's CPU.
const profileHz = 250

// workerCPU is what a CPU profile of a run saw: by the value of the
// workload.WorkerLabel label of the goroutines sampled, their CPU µs, and
// the CPU µs of every sample (labelled or not), beside getrusage's over
// the same window. The figures are sample counts times the sampling
// period: compare them with each other, and total with rusage for their
// accuracy.
type workerCPU struct {
	byWorker      map[string]float64
	total, rusage float64
	// in is, per name of the calls profileWorkers was given, the split
	// workers' CPU µs in those calls (the samples labelled worker=NAME
	// whose stack matches the calls, callsIn): in rumbench's run the kv
	// layer's model calls (Scan, Get, a transaction's) without the
	// worker's own loop around them, and the store's calls within them;
	// in the replay the store's calls made by the player.
	in map[string]float64
}

// callsIn names calls by the prefixes of their functions' names: a sample
// is in them when its stack holds a frame (inlined ones included) of each
// list, e.g. {kvCalls, storeCalls(eng)}: the store's calls made from
// within the kv layer's model calls, and not the store's own goroutines'
// work, which inherit the worker's label when a call starts them.
type callsIn [][]string

// profileWorkers runs fn under a CPU profile: the split step's workers
// (and what they start) carry the label worker=worker in rumbench's run,
// the replay's streams the same one. calls name the calls whose samples
// make in. It returns nil, and fn runs unprofiled, when a profile runs
// already (the benchmark's -cpuprofile). With FLOOR_PROFILE_DIR set, the
// profile is also written there, as name.pb.gz, for go tool pprof.
func profileWorkers(name, worker string, calls map[string]callsIn, fn func() error) (*workerCPU, error) {
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
	w.byWorker, w.total = labelledSamples(p, workload.WorkerLabel, 1e6/profileHz)
	w.in = map[string]float64{}
	for call, prefixes := range calls {
		w.in[call] = samplesIn(p, workload.WorkerLabel, worker, prefixes, 1e6/profileHz)
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

// samplesIn sums, in µs, p's samples labelled label=value whose stack is
// in the calls (callsIn).
func samplesIn(p *profile.Profile, label, value string, calls callsIn, usPerSample float64) float64 {
	var us float64
	for _, s := range p.Sample {
		if v := s.Label[label]; len(v) == 0 || v[0] != value || !stackIn(s, calls) {
			continue
		}
		us += float64(s.Value[0]) * usPerSample
	}
	return us
}

func stackIn(s *profile.Sample, calls callsIn) bool {
	for _, prefixes := range calls {
		if !stackHas(s, prefixes) {
			return false
		}
	}
	return true
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

// TestSamplesIn: only the samples of the label's value whose stack has a
// frame of each of the calls' lists count, inlined frames included.
func TestSamplesIn(t *testing.T) {
	fn := func(name string) *profile.Function { return &profile.Function{Name: name} }
	scan, loop, store := fn("rumbench/internal/engine/kv.(*conn).Scan"), fn("rumbench/internal/workload/ibench.(*Bench).queryWorker"), fn("rumbench/internal/engine/kv/pebble.(*iter).Next")
	flush := fn("github.com/cockroachdb/pebble.(*DB).flush")
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
		// The store's goroutine a query started: the label, not the call.
		{Value: []int64{7}, Label: q, Location: []*profile.Location{{Line: []profile.Line{{Function: flush}}}}},
	}}
	kvCall := []string{"rumbench/internal/engine/kv.(*conn)."}
	storeCall := []string{"github.com/cockroachdb/pebble", "rumbench/internal/engine/kv/pebble."}
	if got := samplesIn(p, "worker", "query", callsIn{kvCall}, 1000); got != 8000 {
		t.Errorf("in the kv layer's calls: %v µs, want 8000", got)
	}
	if got := samplesIn(p, "worker", "query", callsIn{storeCall}, 1000); got != 15000 {
		t.Errorf("in the store's code: %v µs, want 15000 (its goroutine's too)", got)
	}
	if got := samplesIn(p, "worker", "query", callsIn{kvCall, storeCall}, 1000); got != 8000 {
		t.Errorf("in the store's calls within the kv layer's: %v µs, want 8000", got)
	}
	if got := samplesIn(p, "worker", "query", callsIn{{"rumbench/internal/workload/"}}, 1000); got != 10000 {
		t.Errorf("in the worker's loop: %v µs, want 10000 (every query sample)", got)
	}
}

// TestWorkerCPUSplitsByLabel: of two goroutines spinning at once, the one
// labelled worker=requester doing three times the other's work gets about
// three times its samples, and the calls split are the split worker's
// alone.
func TestWorkerCPUSplitsByLabel(t *testing.T) {
	spin := func(n int) (x uint64) {
		for i := range n {
			x = x*6364136223846793005 + uint64(i)
		}
		return x
	}
	var sink [2]uint64
	split := linkbench.WorkerRequester
	calls := map[string]callsIn{"spin": {{"rumbench/internal/floorbench.TestWorkerCPUSplitsByLabel"}}}
	w, err := profileWorkers("split-by-label", split, calls, func() error {
		var wg sync.WaitGroup
		wg.Go(func() {
			pprof.Do(context.Background(), pprof.Labels(workload.WorkerLabel, split), func(context.Context) {
				sink[0] = spin(600_000_000)
			})
		})
		wg.Go(func() {
			pprof.Do(context.Background(), pprof.Labels(workload.WorkerLabel, "writer"), func(context.Context) {
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
	q, wr := w.byWorker[split], w.byWorker["writer"]
	if wr <= 0 || q/wr < 2 || q/wr > 4.5 || q+wr > w.total {
		t.Errorf("requester %.0f µs, writer %.0f µs, total %.0f µs (%v): want the requester about 3× the writer, both within the total", q, wr, w.total, sink)
	}
	// Every sample of the requester's is in its spin; the writer's are not counted.
	if in := w.in["spin"]; in < 0.9*q || in > q {
		t.Errorf("in the spin: %.0f µs, want the requester's %.0f", in, q)
	}
}
