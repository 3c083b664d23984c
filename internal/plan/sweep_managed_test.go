package plan

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"rumbench/internal/enginetest"
	"rumbench/internal/launch"
	"rumbench/internal/managed"
	"rumbench/internal/runner"
)

// requireManaged skips without eng's server binaries, or fails when servers
// are required (CI, RUMBENCH_REQUIRE_SERVERS).
func requireManaged(t *testing.T, eng string) {
	t.Helper()
	if err := managed.Check(eng); err != nil {
		if enginetest.RequireServers() {
			t.Fatalf("managed %s: binaries not installed (CI or RUMBENCH_REQUIRE_SERVERS is set): %v", eng, err)
		}
		t.Skipf("managed %s: binaries not installed here: %v", eng, err)
	}
}

// --vary-server expands an entry as --vary does, after --vary's settings
// in the label: its values become label-scoped --server-opt settings, and
// a labelled entry's own server settings and installation go to each of
// its variants. Each variant's server gets its own value (and the entry's
// settings) once routed.
func TestPlanSweepVaryServer(t *testing.T) {
	requireManaged(t, "innodb")
	r := sweepRequest()
	r.Engines = []Engine{{"ib", "innodb"}, {"pebble", "pebble"}}
	r.Managed = managed.Request{Given: true, Engines: []string{managed.All},
		ServerOpts: []string{"ib.innodb_flush_log_at_trx_commit=2"}, Installs: []string{"ib=/usr"}}
	r.Vary = []string{"ib.row_format=dynamic,compact"}
	r.VaryServer = []string{"innodb-page-size=8k,16k"}
	p, spec := planSpec(t, r)
	labels := []string{"ib-row_format-dynamic-innodb_page_size-8k", "ib-row_format-dynamic-innodb_page_size-16k",
		"ib-row_format-compact-innodb_page_size-8k", "ib-row_format-compact-innodb_page_size-16k", "pebble"}
	if !reflect.DeepEqual(spec.Engines, labels) {
		t.Fatalf("variants %v\nwant %v", spec.Engines, labels)
	}
	if spec.Shared["managed"] == nil {
		t.Errorf("sweep.json does not record the managed servers: %v", spec.Shared)
	}
	for _, kv := range p.ServerOpts {
		if strings.HasPrefix(kv, "ib.") {
			t.Errorf("the varied entry's own setting %s stayed on its old label", kv)
		}
	}
	if len(p.Installs) != 4 || p.Installs[0] != labels[0]+"=/usr" {
		t.Errorf("installs %v: want the entry's for each of its variants", p.Installs)
	}
	s, err := p.Servers(&launch.Memory{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Manages("innodb") || s.Manages("pebble") {
		t.Errorf("managed engines %v", s.Plan.Engines)
	}
	settings, err := variantServerSettings(s.Plan, p.ServerOpts, p.Variants, map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range labels[:4] {
		got := map[string]string{}
		for _, st := range settings[l] {
			got[st.Key] = st.Value
		}
		page := "8k"
		if strings.HasSuffix(l, "16k") {
			page = "16k"
		}
		if got["innodb_page_size"] != page || got["innodb_flush_log_at_trx_commit"] != "2" {
			t.Errorf("%s's server settings %v", l, got)
		}
	}
	if o := p.CellOptions(spec.Cells()[0], labels[2], "s"); o.EngineOpts["row_format"] != "compact" {
		t.Errorf("%s's engine settings %v", labels[2], o.EngineOpts)
	}
}

// countingStarter is a test double of a server starter: it counts the
// servers it starts and stops, and starts none for engine "none".
type countingStarter struct {
	started, stopped []string
}

func (c *countingStarter) start(_ context.Context, label, dir string) (*runner.Server, error) {
	if label == "none" {
		return nil, nil
	}
	if dir != "" {
		return nil, errors.New("a pooled server must get a directory of its own, not a run's data dir")
	}
	c.started = append(c.started, label)
	return &runner.Server{DSN: "dsn-" + label, Stop: func() error {
		c.stopped = append(c.stopped, label)
		return nil
	}}, nil
}

// The pool starts one server per label at its first use, lends it to
// every later run as Shared with a Stop that leaves it running, and Close
// stops each once, the last started first.
func TestServerPool(t *testing.T) {
	c := &countingStarter{}
	pool := (&Servers{Start: c.start}).Pool()
	start := pool.Starter()
	ctx := context.Background()
	for _, label := range []string{"a", "b", "a", "none", "b", "a"} {
		srv, err := start(ctx, label, "/a/run/data/dir")
		if err != nil {
			t.Fatal(err)
		}
		if label == "none" {
			if srv != nil {
				t.Errorf("a label without a server got %+v", srv)
			}
			continue
		}
		if srv.DSN != "dsn-"+label || !srv.Shared {
			t.Errorf("%s: lent %+v", label, srv)
		}
		if err := srv.Stop(); err != nil || len(c.stopped) > 0 {
			t.Errorf("a run's Stop stopped the pooled server (%v, %v)", err, c.stopped)
		}
	}
	if !reflect.DeepEqual(c.started, []string{"a", "b"}) {
		t.Errorf("started %v, want one server per label", c.started)
	}
	if err := pool.Close(); err != nil || !reflect.DeepEqual(c.stopped, []string{"b", "a"}) {
		t.Errorf("Close: %v, stopped %v", err, c.stopped)
	}
	if err := pool.Close(); err != nil || len(c.stopped) != 2 {
		t.Errorf("a second Close stopped again: %v", c.stopped)
	}
	var none *Servers
	if none.Pool().Starter() != nil || none.Pool().Close() != nil {
		t.Error("without servers the pool should be nil and do nothing")
	}
}
