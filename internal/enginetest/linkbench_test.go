package enginetest

import (
	"bytes"
	"context"
	"fmt"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"rumbench/internal/engine"
	"rumbench/internal/figure"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/model/modeltest"
	"rumbench/internal/units"
	"rumbench/internal/workload"
	"rumbench/internal/workload/linkbench"
)

// TestLinkBenchCountsEmbedded: counts equal visible links after concurrent
// requests (issue 19), on every embedded engine.
func TestLinkBenchCountsEmbedded(t *testing.T) {
	for _, name := range []string{"pebble", "sqlite", "bbolt"} {
		t.Run(name, func(t *testing.T) {
			LinkBenchCounts(t, Target{Engine: name, DataDir: t.TempDir()})
		})
	}
}

// TestLinkBenchSameSeedSameTables: one configuration and seed loads
// identical table contents on different engines; another seed does not.
func TestLinkBenchSameSeedSameTables(t *testing.T) {
	c := LinkBenchConfig(linkbench.StepLoad)
	a := LinkBenchChecksum(t, Target{Engine: "pebble", DataDir: t.TempDir()}, c)
	b := LinkBenchChecksum(t, Target{Engine: "sqlite", DataDir: t.TempDir()}, c)
	if a != b {
		t.Fatalf("pebble checksum %s, sqlite %s: the same seed loaded different tables", a, b)
	}
	c.Seed++
	if d := LinkBenchChecksum(t, Target{Engine: "pebble", DataDir: t.TempDir()}, c); d == a {
		t.Fatalf("another seed loaded the same tables (%s)", d)
	}
	t.Logf("checksum %s", a)
}

// TestLinkBenchPaced: with --request-rate each requester runs on a
// schedule: the request count is the rate times the window, and the
// response latency (from the intended start) is recorded.
func TestLinkBenchPaced(t *testing.T) {
	c := LinkBenchConfig()
	c.Requests, c.RequestSeconds, c.RequestRate, c.Requesters = 0, 2, 100, 2
	b := RunLinkBench(t, Target{Engine: "pebble", DataDir: t.TempDir()}, c)
	st := mustStep(t, b, linkbench.StepRequest)
	req, resp := st.Ops[linkbench.OpRequest], st.Ops[linkbench.OpRequestResponse]
	if req == nil || resp == nil || resp.Count != req.Count {
		t.Fatalf("request %+v, response %+v", req, resp)
	}
	missed, _ := st.Details[linkbench.DetailMissed].(float64)
	if done := float64(req.Count) + missed; done < 380 || done > 402 {
		t.Errorf("%d requests + %v missed slots in 2 s at 2 × 100/s, want 400", req.Count, missed)
	}
	// The step recorded its requests' target (2 × 100/s), judged on their
	// average rate as written to the bundle and read back; a request
	// target has no version 1 (writers') fields.
	if len(st.Targets) != 1 {
		t.Fatalf("targets %+v, want the requests'", st.Targets)
	}
	tg := st.Targets[0]
	pct := units.RoundHalfUp(*req.RateAvg/200*1000, 0) / 10
	if tg.Op != linkbench.OpRequest || tg.Who != "requests" || tg.Unit != measure.UnitOps || tg.Rate != 200 ||
		tg.Achieved != *req.RateAvg || tg.PctOf == nil || *tg.PctOf != pct || tg.Met != (*req.RateAvg >= 190) {
		t.Errorf("target %+v (pct %v), want requests at 200/s, achieved %v (%v%%)", tg, tg.PctOf, *req.RateAvg, pct)
	}
	if st.IPSTarget != nil || st.TargetMet != nil {
		t.Errorf("a request target wrote ips_target %v, target_met %v", st.IPSTarget, st.TargetMet)
	}
	word := "ok"
	if !tg.Met {
		word = "MISSED"
	}
	want := fmt.Sprintf("%s: %.1f%% of their 200 requests/s target (ok at 95%%)", word, pct)
	if v := figure.TargetsOf(st); len(v) != 1 || v[0].Label() != "requests' SLA" || v[0].Line() != want {
		t.Errorf("verdict %+v, want requests' SLA %s", v, want)
	}
}

// TestLinkBenchRequestConnectsInSetup: the request step's requesters connect
// in its Setup, before the clock starts, and the step opens no connection of
// its own and closes theirs at its end.
func TestLinkBenchRequestConnectsInSetup(t *testing.T) {
	ctx := context.Background()
	raw, err := engine.Open(ctx, "sqlite", model.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	db := &modeltest.ConnCounter{DB: raw}
	c := LinkBenchConfig()
	b, err := linkbench.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Prepare(ctx, db); err != nil {
		t.Fatal(err)
	}
	for _, st := range b.Steps() {
		env := &workload.Env{DB: db, Clock: measure.NewClock(time.Second, b.Ops()), Details: map[string]any{}, Logf: t.Logf}
		if st.Setup != nil {
			if err := st.Setup(ctx, env); err != nil {
				t.Fatalf("%s setup: %v", st.Name, err)
			}
		}
		open, opened := db.Open(), db.Opened()
		if st.Name == linkbench.StepRequest && open != int64(c.Requesters) {
			t.Fatalf("after the request step's setup %d connections open, want %d", open, c.Requesters)
		}
		env.Clock.Start()
		err := st.Run(ctx, env)
		env.Clock.Stop()
		if err != nil {
			t.Fatalf("%s: %v", st.Name, err)
		}
		if st.Name != linkbench.StepRequest {
			continue
		}
		if got := db.Opened(); got != opened {
			t.Errorf("the request step opened %d connections of its own", got-opened)
		}
		if got := db.Open(); got != 0 {
			t.Errorf("%d connections left open after the request step", got)
		}
		if tot := env.Clock.Total(b.Ops().Must(linkbench.OpRequest)); tot == nil || tot.Ops != c.Requests*int64(c.Requesters) {
			t.Errorf("requests: %+v, want %d", tot, c.Requests*int64(c.Requesters))
		}
	}
}

// TestLinkBenchRequestersCarryLabel: while a paced request step runs with
// 2 requesters, a goroutine profile finds them under the worker label
// (--profile and the floor benchmark split the requesters' CPU by it).
func TestLinkBenchRequestersCarryLabel(t *testing.T) {
	c := LinkBenchConfig()
	c.Requests, c.RequestSeconds, c.RequestRate, c.Requesters = 0, 1.5, 100, 2
	got := make(chan map[string]int64, 1)
	go func() {
		// Well inside the request step's 1.5 s, after the small load.
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			by, err := goroutinesByLabel(workload.WorkerLabel)
			if err != nil {
				t.Error(err)
				break
			}
			if by[linkbench.WorkerRequester] > 0 {
				got <- by
				return
			}
		}
		got <- nil
	}()
	RunLinkBench(t, Target{Engine: "pebble", DataDir: t.TempDir()}, c)
	if by := <-got; by[linkbench.WorkerRequester] < 2 {
		t.Errorf("goroutines by worker label during the request step: %v; want at least 2 requesters", by)
	}
}

// goroutinesByLabel counts the live goroutines by their value of label.
func goroutinesByLabel(label string) (map[string]int64, error) {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		return nil, err
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		return nil, err
	}
	by := map[string]int64{}
	for _, s := range p.Sample {
		if v := s.Label[label]; len(v) > 0 {
			by[v[0]] += s.Value[0]
		}
	}
	return by, nil
}
