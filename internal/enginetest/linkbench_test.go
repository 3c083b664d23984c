package enginetest

import (
	"testing"

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
}
