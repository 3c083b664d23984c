package crashtest

import (
	"context"
	"maps"
	"os"
	"testing"
	"time"

	"rumbench/internal/engine"
	_ "rumbench/internal/engine/all"
	"rumbench/internal/managed"
	"rumbench/internal/model"
)

// TestMain lets the test binary be the child process of the embedded
// engines' crash tests, as the rumbench binary is for `rumbench crashtest`.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == ChildCommand {
		if err := Child(context.Background(), os.Args[2], os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func spec(t *testing.T, name string, durable bool) Spec {
	t.Helper()
	d, err := engine.Lookup(name)
	if err != nil {
		t.Skipf("engine %s not in this build: %v", name, err)
	}
	if err := d.Available(); err != nil {
		t.Skipf("engine %s not available: %v", name, err)
	}
	dataDir := t.TempDir()
	if d.Kind() == model.Server {
		if err := managed.Check(name); err != nil {
			t.Skipf("managed %s server not installed: %v", name, err)
		}
		// A temporary directory the server's user can enter (t.TempDir's
		// parent is private to root).
		dataDir = ""
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	opts, ok := Options(d, durable)
	if !ok {
		t.Fatalf("engine %s has no crash options (durable %v)", name, durable)
	}
	return Spec{Engine: name, DataDir: dataDir, Options: opts, Durable: durable, Shape: DefaultShape,
		KillAfter: time.Second, Exe: exe, Log: testLog{t}}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) { l.t.Log(string(p)); return len(p), nil }

// TestDurableCommitsSurviveKill: on every engine, with durable commits,
// every acknowledged insert is present after a SIGKILL of the engine (the
// child process of an embedded engine, the main process of a managed
// server) and a reopen, and every index matches the primary key.
func TestDurableCommitsSurviveKill(t *testing.T) {
	for _, name := range []string{"pebble", "sqlite", "bbolt", "rocksdb", "wiredtiger", "postgres", "innodb"} {
		t.Run(name, func(t *testing.T) {
			r, err := Run(context.Background(), spec(t, name, true))
			if err != nil {
				t.Fatal(err)
			}
			t.Log(r.Line())
			if r.Acknowledged < int64(DefaultShape.Clients*DefaultShape.RowsPerCommit) {
				t.Fatalf("only %d rows acknowledged before the kill", r.Acknowledged)
			}
			if r.Lost != 0 || r.Present != r.Acknowledged {
				t.Errorf("lost %d acknowledged rows (present %d of %d): %+v", r.Lost, r.Present, r.Acknowledged, r.Tables)
			}
			if r.Verify == nil || !r.Verify.OK || r.Verify.Tables != DefaultShape.Clients {
				t.Errorf("indexes after the crash: %+v", r.Verify)
			}
			if !r.OK() {
				t.Error("result not OK")
			}
		})
	}
}

// TestNonDurableLossIsReported: without durable commits a loss is a
// measurement, not a failure; the counts still add up.
func TestNonDurableLossIsReported(t *testing.T) {
	r, err := Run(context.Background(), spec(t, "pebble", false))
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r.Line())
	if r.Durable || r.Present+r.Lost != r.Acknowledged || !r.OK() {
		t.Fatalf("non-durable result: %+v", r)
	}
}

// TestCheckCountsLoss: Check finds rows missing inside the acknowledged
// range (here deleted behind the engine's back) and rows past it.
func TestCheckCountsLoss(t *testing.T) {
	ctx := context.Background()
	db, err := engine.Open(ctx, "pebble", model.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := Shape{Clients: 1, Indexes: 1, RowsPerCommit: 10, Seed: 1}
	if err := s.Create(ctx, db); err != nil {
		t.Fatal(err)
	}
	acks := Acks{}
	cctx, cancel := context.WithCancel(ctx)
	n := 0
	s.insertLoop(cctx, db, 0, func(table string, first, last int64) {
		if n++; n == 5 {
			cancel()
		}
		if n <= 4 {
			acks.Add(table, first, last)
		}
	})
	conn, _ := db.Conn(ctx)
	tab := s.Tables()[0]
	if got, err := conn.DeleteOldest(ctx, tab, model.Row{{Int: 1}}, 3); err != nil || got != 3 {
		t.Fatalf("delete: %d %v", got, err)
	}
	conn.Close()
	r := &Result{Durable: true}
	if err := Check(ctx, db, s, acks, r); err != nil {
		t.Fatal(err)
	}
	tr := r.Tables[0]
	if tr.Acknowledged != 40 || tr.Present != 37 || tr.Lost != 3 || tr.FirstLost != 1 || tr.Beyond != 10 || r.OK() {
		t.Fatalf("check: %+v ok=%v", tr, r.OK())
	}
}

// Each engine package declares the options of its crash test
// (model.Durability); these are the ones rumbench has always used, and an
// engine without them (null, mongodb) is not crash-testable.
func TestOptionsDeclaredByEngines(t *testing.T) {
	want := map[string][2]map[string]string{
		"pebble":     {{"sync": "true"}, {"sync": "false"}},
		"bbolt":      {{"sync": "true"}, {"sync": "false"}},
		"rocksdb":    {{"sync": "true"}, {"sync": "false"}},
		"wiredtiger": {{"sync": "true"}, {"sync": "false"}},
		"sqlite":     {{"synchronous": "full"}, {"synchronous": "off"}},
		"postgres":   {{"synchronous_commit": "on"}, {"synchronous_commit": "off"}},
		"innodb":     {{}, nil},
		"myrocks":    {{}, nil},
	}
	for _, d := range engine.All() {
		w, testable := want[d.Name()]
		for i, durable := range []bool{true, false} {
			got, ok := Options(d, durable)
			if ok != (testable && w[i] != nil) || !maps.Equal(got, w[i]) {
				t.Errorf("%s durable=%v: %v %v, want %v", d.Name(), durable, got, ok, w[i])
			}
		}
	}
	names := Engines(engine.All())
	for _, n := range names {
		if _, ok := want[n]; !ok {
			t.Errorf("Engines lists %s", n)
		}
	}
	if len(names) < 5 {
		t.Errorf("Engines %v: want at least the engines built in everywhere", names)
	}
}
