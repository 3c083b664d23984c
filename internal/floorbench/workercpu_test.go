package floorbench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"testing"

	"github.com/google/pprof/profile"

	"rumbench/internal/workload/ibench"
)

// profileHz is the rate workerCPU samples at: 2.5 times pprof's default,
// and the most a thread's CPU timer gives on a kernel ticking at 250 Hz
// (Debian's): asked for 500 Hz, the kernel here fired half as often, and
// the samples, counted at 2 ms each, added up to half of getrusage's CPU.
const profileHz = 250

// workerCPU runs fn under a CPU profile and returns, by the value of the
// ibench.WorkerLabel label of the goroutines sampled, their CPU µs, and
// the CPU µs of every sample (labelled or not): the query step's workers
// (and what they start) carry the label in rumbench's run, the replay's
// querier streams the same one. The figures are sample counts times the
// sampling period, not getrusage's: compare them with each other, and
// the total with getrusage's over the same window for their accuracy.
// prof is false, and fn runs unprofiled, when a profile runs already (the
// benchmark's -cpuprofile). With FLOOR_PROFILE_DIR set, the profile is
// also written there, as name.pb.gz, for go tool pprof.
func workerCPU(name string, fn func() error) (byWorker map[string]float64, total float64, prof bool, err error) {
	var buf bytes.Buffer
	// The rate must be set before StartCPUProfile, which asks for 100 Hz
	// and (with a warning on stderr) keeps the rate already set. With a
	// profile already running this does nothing but warn either.
	runtime.SetCPUProfileRate(profileHz)
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return nil, 0, false, fn()
	}
	err = fn()
	pprof.StopCPUProfile()
	if err != nil {
		return nil, 0, true, err
	}
	if dir := os.Getenv("FLOOR_PROFILE_DIR"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name+".pb.gz"), buf.Bytes(), 0o644); err != nil {
			return nil, 0, true, fmt.Errorf("keep the CPU profile: %w", err)
		}
	}
	p, perr := profile.Parse(&buf)
	if perr != nil {
		return nil, 0, true, fmt.Errorf("read the CPU profile: %w", perr)
	}
	byWorker, total = labelledSamples(p, ibench.WorkerLabel, 1e6/profileHz)
	return byWorker, total, true, nil
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
	by, total, prof, err := workerCPU("split-by-label", func() error {
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
	if !prof {
		t.Skip("a CPU profile runs already")
	}
	q, w := by[ibench.WorkerQuery], by["writer"]
	if w <= 0 || q/w < 2 || q/w > 4.5 || q+w > total {
		t.Errorf("query %.0f µs, writer %.0f µs, total %.0f µs (%v): want query about 3× writer, both within the total", q, w, total, sink)
	}
}
