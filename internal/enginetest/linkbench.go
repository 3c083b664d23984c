package enginetest

import (
	"context"
	"fmt"
	"testing"

	"rumbench/internal/engine"
	"rumbench/internal/results"
	"rumbench/internal/workload"
	"rumbench/internal/workload/linkbench"
)

// LinkBenchConfig is the linkbench configuration of the engine tests: a
// small graph and a write-heavy mix, so concurrent requests often change
// the links and counts of the same popular nodes.
func LinkBenchConfig(steps ...string) linkbench.Config {
	c := linkbench.DefaultConfig()
	c.Nodes, c.MaxDegree, c.Loaders, c.RowsPerCommit = 2000, 100, 2, 100
	c.Requesters, c.RequestSeconds, c.Requests = 4, 0, 150
	c.AccessTheta = 1.1
	c.Mix, _ = linkbench.ParseMix("add_link=25,update_link=15,delete_link=25,get_link_list=15,count_link=5,add_node=5,update_node=5,delete_node=3,get_node=1,multiget_link=1")
	c.MixText = c.Mix.String()
	c.Seed = 11
	if len(steps) > 0 {
		c.Steps = steps
	}
	return c
}

// RunLinkBench runs linkbench with c on the target and returns the bundle.
func RunLinkBench(t *testing.T, tg Target, c linkbench.Config) *results.Bundle {
	t.Helper()
	return runWorkload(t, tg, c.Seed, c, func() (workload.Workload, error) { return linkbench.New(c) }, fmt.Sprintf("linkbench %v", c.Steps))
}

// LinkBenchCounts loads a graph, runs concurrent write-heavy requests, and
// checks that every count equals the visible links of its (id, link_type)
// and that link's index matches the table (issue 19).
func LinkBenchCounts(t *testing.T, tg Target) {
	c := LinkBenchConfig()
	b := RunLinkBench(t, tg, c)
	st := mustStep(t, b, linkbench.StepRequest)
	op := st.Ops[linkbench.OpRequest]
	want := c.Requests * int64(c.Requesters)
	if op == nil || op.Count != want || op.Errors != 0 {
		t.Fatalf("request step: %+v, want %d requests without errors", op, want)
	}
	for _, name := range linkbench.RequestTypes {
		if o := st.Ops[name]; o == nil || o.Count == 0 && c.Mix[indexOf(name)] >= 5 {
			t.Errorf("request type %s: %+v", name, o)
		}
	}
	t.Logf("%s: retries %v, errors %v", tg.Engine, st.Details[linkbench.DetailRetries], st.Details[linkbench.DetailErrors])
	Verify(t, tg)
	db, err := engine.Open(context.Background(), tg.Engine, tg.config())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := linkbench.CheckCounts(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() || res.CountRows == 0 || res.VisibleLinks == 0 {
		t.Fatalf("counts: %+v", res)
	}
	t.Logf("%s: %d count rows, %d visible links, all consistent", tg.Engine, res.CountRows, res.VisibleLinks)
}

func indexOf(name string) int {
	for i, n := range linkbench.RequestTypes {
		if n == name {
			return i
		}
	}
	return -1
}

// LinkBenchChecksum loads c's graph (load step only) on the target and
// returns the tables' checksum.
func LinkBenchChecksum(t *testing.T, tg Target, c linkbench.Config) string {
	t.Helper()
	RunLinkBench(t, tg, c)
	db, err := engine.Open(context.Background(), tg.Engine, tg.config())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sum, err := linkbench.Checksum(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}
