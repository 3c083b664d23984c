package history

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"rumbench/internal/report"
	"rumbench/internal/results"
	"rumbench/internal/testdb"
)

// The store tests run on both stores: a SQLite file in a temporary
// directory and a database of their own on the PostgreSQL server at
// $RUMBENCH_PG_DSN (default the local server), dropped after. They skip
// PostgreSQL when it is unreachable, unless CI or RUMBENCH_REQUIRE_SERVERS
// is set.

const defaultPGDSN = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

func pgDSN() string {
	if v := os.Getenv("RUMBENCH_PG_DSN"); v != "" {
		return v
	}
	return defaultPGDSN
}

func requireServers() bool {
	return os.Getenv("CI") != "" || os.Getenv("RUMBENCH_REQUIRE_SERVERS") != ""
}

var pgSeq atomic.Int64

// pgStore creates a database of the test's own on the server and returns
// its DSN; the database is dropped when the test ends.
func pgStore(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, pgDSN())
	if err != nil {
		if requireServers() {
			t.Fatalf("postgres unreachable (CI or RUMBENCH_REQUIRE_SERVERS is set): %v", err)
		}
		t.Skipf("postgres unreachable (set RUMBENCH_REQUIRE_SERVERS=1 to fail): %v", err)
	}
	name := testdb.Name(t, fmt.Sprintf("rumbench_test_history_%d", pgSeq.Add(1)))
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	admin.Close(ctx)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		admin, err := pgx.Connect(ctx, pgDSN())
		if err != nil {
			t.Errorf("drop %s: %v", name, err)
			return
		}
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
	})
	u, err := url.Parse(pgDSN())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// forEachStore runs test on a fresh SQLite store and a fresh PostgreSQL
// store.
func forEachStore(t *testing.T, test func(t *testing.T, target string)) {
	t.Run("sqlite", func(t *testing.T) {
		test(t, filepath.Join(t.TempDir(), "sub", "history.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		test(t, pgStore(t))
	})
}

func openStore(t *testing.T, target string) *Store {
	t.Helper()
	s, err := Open(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// copyBundle copies the stored test bundle src to dst, editing its
// run.json with edit (to give a copy its own identity or kind).
func copyBundle(t *testing.T, src, dst string, edit func(run map[string]any)) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == results.RunFile && edit != nil {
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				return err
			}
			edit(m)
			if b, err = json.Marshal(m); err != nil {
				return err
			}
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func startedAt(ts string) func(map[string]any) {
	return func(m map[string]any) { m["started_at"] = ts }
}

const testdata = "../report/testdata"

// bundleKinds lays out every kind of bundle directory under root and
// returns how many runs they hold: a single bundle, a run's --out of two
// engines, a repeated run's rep-N, a sweep's cells, a merged bundle beside
// one of its shards (skipped), and a version 1 release bundle.
func bundleKinds(t *testing.T, root string) int {
	copyBundle(t, filepath.Join(testdata, "pebble-small"), filepath.Join(root, "single"), nil)
	copyBundle(t, filepath.Join(testdata, "run1", "pebble"), filepath.Join(root, "out", "pebble"), nil)
	copyBundle(t, filepath.Join(testdata, "run1", "sqlite"), filepath.Join(root, "out", "sqlite"), nil)
	for k := 1; k <= 2; k++ {
		copyBundle(t, filepath.Join(testdata, "run1", "pebble"), filepath.Join(root, "repeat", fmt.Sprintf("rep-%d", k), "pebble"),
			startedAt(fmt.Sprintf("2026-01-03T10:00:0%dZ", k)))
	}
	for i, cell := range []string{"clients-1", "clients-2"} {
		copyBundle(t, filepath.Join(testdata, "run1", "pebble"), filepath.Join(root, "sweep", cell, "pebble"),
			startedAt(fmt.Sprintf("2026-01-04T10:00:0%dZ", i)))
	}
	copyBundle(t, filepath.Join(testdata, "run1", "pebble"), filepath.Join(root, "sharded", "merged", "pebble"), func(m map[string]any) {
		m["merged_from"] = map[string]any{"run_id": "r1", "count": 2, "shards": []any{}}
	})
	copyBundle(t, filepath.Join(testdata, "run1", "pebble"), filepath.Join(root, "sharded", "shard-1", "pebble"), func(m map[string]any) {
		m["shard"] = map[string]any{"index": 1, "count": 2, "run_id": "r1"}
	})
	copyBundle(t, filepath.Join(testdata, "v1-release", "pebble"), filepath.Join(root, "v1", "pebble"), nil)
	return 1 + 2 + 2 + 2 + 1 + 1
}

func TestImportBundleKinds(t *testing.T) {
	forEachStore(t, func(t *testing.T, target string) {
		ctx := context.Background()
		root := t.TempDir()
		want := bundleKinds(t, root)
		s := openStore(t, target)
		added, err := s.AddDirs(ctx, []string{root}, "")
		if err != nil {
			t.Fatal(err)
		}
		skipped := 0
		for _, a := range added {
			if a.Skipped != "" {
				skipped++
				if !strings.Contains(a.Dir, "shard-1") {
					t.Errorf("%s skipped: %s", a.Dir, a.Skipped)
				}
			}
		}
		if skipped != 1 {
			t.Errorf("%d bundles skipped, want the one shard", skipped)
		}
		runs, err := s.Runs(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != want {
			t.Fatalf("%d runs recorded, want %d", len(runs), want)
		}
		kinds := map[string]int{}
		for _, r := range runs {
			kinds[r.Kind]++
			if r.Label != r.Engine {
				t.Errorf("run %s: label %q, want the engine's name %q", r.Dir, r.Label, r.Engine)
			}
			if r.HostClass == "" || r.ToolVersion == "" || r.EngineVersion == "" {
				t.Errorf("run %s lacks its host class, tool or engine version: %+v", r.Dir, r)
			}
		}
		if kinds[KindMerged] != 1 {
			t.Errorf("kinds %v: want one merged run", kinds)
		}
		// The figures recorded are the report's, step by step.
		b, err := report.ReadBundle(filepath.Join(root, "out", "sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		ss, err := s.Series(ctx, Filter{Label: "sqlite"})
		if err != nil {
			t.Fatal(err)
		}
		if len(ss) == 0 {
			t.Fatal("no sqlite series")
		}
		for _, ser := range ss {
			if len(ser.Points) != 1 {
				t.Fatalf("series %s: %d points, want 1", ser.Key, len(ser.Points))
			}
			want := report.StepFigures(b, ser.Key.Step)
			got := ser.Points[0].Figures
			if len(got) != len(want) || len(want) == 0 {
				t.Errorf("step %s: %d figures recorded, the report has %d", ser.Key.Step, len(got), len(want))
			}
			for _, f := range want {
				if got[f.Key] != f.Value {
					t.Errorf("step %s %s = %v, the report says %v", ser.Key.Step, f.Key, got[f.Key], f.Value)
				}
			}
		}
		// Filters.
		if rs, _ := s.Runs(ctx, Filter{Engine: "sqlite"}); len(rs) != 1 {
			t.Errorf("--engine sqlite: %d runs, want 1", len(rs))
		}
		if rs, _ := s.Runs(ctx, Filter{Since: time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)}); len(rs) != 2+2+1 {
			t.Errorf("--since 2026-01-03: %d runs, want 5", len(rs))
		}
		if rs, _ := s.Runs(ctx, Filter{Step: "qr100"}); len(rs) == 0 || len(rs) == want {
			t.Errorf("--step qr100: %d runs of %d", len(rs), want)
		}
	})
}

// A bundle added twice, or added again from another path, is one run.
func TestReimportIsIdempotent(t *testing.T) {
	forEachStore(t, func(t *testing.T, target string) {
		ctx := context.Background()
		root := t.TempDir()
		want := bundleKinds(t, root)
		s := openStore(t, target)
		for i := 0; i < 2; i++ {
			added, err := s.AddDirs(ctx, []string{root}, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range added {
				if a.Skipped == "" && a.Existed != (i == 1) {
					t.Errorf("pass %d: %s existed=%v", i+1, a.Dir, a.Existed)
				}
			}
		}
		moved := filepath.Join(t.TempDir(), "moved")
		copyBundle(t, filepath.Join(root, "out", "pebble"), moved, nil)
		if _, err := s.AddDirs(ctx, []string{moved}, ""); err != nil {
			t.Fatal(err)
		}
		runs, err := s.Runs(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != want {
			t.Fatalf("%d runs after adding everything twice, want %d", len(runs), want)
		}
		var figures int
		if err := s.db.QueryRow(`SELECT count(*) FROM figures`).Scan(&figures); err != nil {
			t.Fatal(err)
		}
		s2 := openStore(t, filepath.Join(t.TempDir(), "once.db"))
		if _, err := s2.AddDirs(ctx, []string{root}, ""); err != nil {
			t.Fatal(err)
		}
		var once int
		if err := s2.db.QueryRow(`SELECT count(*) FROM figures`).Scan(&once); err != nil {
			t.Fatal(err)
		}
		if figures != once {
			t.Fatalf("%d figure rows after adding twice, %d after once", figures, once)
		}
	})
}

// helperEnv makes the test binary a recording process (see
// TestRecordProcess).
const helperEnv = "RUMBENCH_HISTORY_TEST_RECORD"

// TestRecordProcess is not a test: run with helperEnv set to
// "target\ndir" it records dir into target and exits, so that tests can
// record from two processes at once.
func TestRecordProcess(t *testing.T) {
	arg := os.Getenv(helperEnv)
	if arg == "" {
		t.Skip("helper process only")
	}
	target, dir, _ := strings.Cut(arg, "\n")
	s, err := Open(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.AddDirs(context.Background(), []string{dir}, ""); err != nil {
		t.Fatal(err)
	}
}

// Two processes creating the store and recording at once, the same runs
// and different ones, leave every run recorded once; so do two goroutines.
func TestConcurrentRecording(t *testing.T) {
	forEachStore(t, func(t *testing.T, target string) {
		root := t.TempDir()
		want := bundleKinds(t, root)
		// Process 1 records everything; process 2 the repeated run (also
		// in everything) while goroutines here record the sweep.
		dirs := []string{root, filepath.Join(root, "repeat")}
		var cmds []*exec.Cmd
		for _, d := range dirs {
			c := exec.Command(os.Args[0], "-test.run=^TestRecordProcess$", "-test.count=1")
			c.Env = append(os.Environ(), helperEnv+"="+target+"\n"+d)
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, c)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := Open(context.Background(), target)
				if err != nil {
					errs[i] = err
					return
				}
				defer s.Close()
				_, errs[i] = s.AddDirs(context.Background(), []string{filepath.Join(root, "sweep")}, "")
			}()
		}
		wg.Wait()
		for _, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Errorf("recording process: %v", err)
			}
		}
		for _, err := range errs {
			if err != nil {
				t.Errorf("recording goroutine: %v", err)
			}
		}
		s := openStore(t, target)
		runs, err := s.Runs(context.Background(), Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != want {
			t.Fatalf("%d runs recorded, want %d", len(runs), want)
		}
	})
}

// A store of schema version 1, made by hand as rumbench wrote it then, is
// migrated to the current version on open, its runs kept and completed.
func TestMigrateFromVersion1(t *testing.T) {
	forEachStore(t, func(t *testing.T, target string) {
		ctx := context.Background()
		old, err := open(ctx, target, 1)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := old.SchemaVersion(ctx); v != 1 {
			t.Fatalf("made a store of version %d, want 1", v)
		}
		if _, err := old.db.ExecContext(ctx, old.q(`INSERT INTO runs VALUES (?, ?, '', 'ibench', '{"rows":"1000"}', 'pebble', 'pebble', 'v2.1.7', '{}', '{}', '{}',
			'0.9.0', 'abc123', 'h1', 'Xeon', 4, ?, 'nvme0n1', 1, '/r/pebble', ?)`),
			"k1", fmtTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), int64(16)<<30, fmtTime(time.Now())); err != nil {
			t.Fatal(err)
		}
		if _, err := old.db.ExecContext(ctx, `INSERT INTO figures VALUES ('k1', 'l.i0', 'rate_avg', 1234.5)`); err != nil {
			t.Fatal(err)
		}
		old.Close()

		s := openStore(t, target)
		if v, err := s.SchemaVersion(ctx); err != nil || v != CurrentVersion {
			t.Fatalf("schema version %d (%v) after open, want %d", v, err, CurrentVersion)
		}
		runs, err := s.Runs(ctx, Filter{})
		if err != nil || len(runs) != 1 {
			t.Fatalf("runs after migration: %v %v", runs, err)
		}
		if want := "Xeon/4c/16GiB/nvme0n1"; runs[0].HostClass != want {
			t.Errorf("host class %q, want %q", runs[0].HostClass, want)
		}
		ss, err := s.Series(ctx, Filter{Step: "l.i0"})
		if err != nil {
			t.Fatal(err)
		}
		if len(ss) != 1 || len(ss[0].Points) != 1 || ss[0].Points[0].Figures["rate_avg"] != 1234.5 {
			t.Fatalf("series after migration: %+v", ss)
		}
		// Opening again changes nothing.
		s.Close()
		again := openStore(t, target)
		if rs, _ := again.Runs(ctx, Filter{}); len(rs) != 1 {
			t.Fatalf("%d runs after a second open", len(rs))
		}
	})
}

// A store newer than this rumbench is refused with a message saying so.
func TestNewerSchemaRefused(t *testing.T) {
	target := filepath.Join(t.TempDir(), "h.db")
	s := openStore(t, target)
	if _, err := s.db.Exec(`UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := Open(context.Background(), target)
	if err == nil || !strings.Contains(err.Error(), "newer rumbench") {
		t.Fatalf("opening a version 99 store: %v", err)
	}
}

// A bad DSN is reported without its password.
func TestDSNPasswordNotShown(t *testing.T) {
	_, err := Open(context.Background(), "postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=1&sslmode=disable")
	if err == nil {
		t.Fatal("opened a store on port 1")
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("error shows the password: %v", err)
	}
}
