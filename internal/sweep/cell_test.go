package sweep

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"rumbench/internal/results"
)

// Cells started at once in separate processes (here goroutines) on a fresh
// volume (holding lost+found) agree on one sweep.json and each runs its own
// cell only; Status then lists what is missing.
func TestRunCellsAtOnce(t *testing.T) {
	out := t.TempDir()
	if err := os.Mkdir(filepath.Join(out, "lost+found"), 0o700); err != nil {
		t.Fatal(err)
	}
	spec := ibenchSpec([]string{"a", "b"}, []int{0, 1, 2}, []int{20}, []int{1, 4})
	cells := spec.Cells()
	var mu sync.Mutex
	var ran []string
	run := func(_ context.Context, c Cell, engine, dir string) error {
		mu.Lock()
		ran = append(ran, c.Name()+"/"+engine)
		mu.Unlock()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "run.json"), []byte(`{"complete": true}`), 0o644)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(cells))
	for i := range cells {
		if i == 4 {
			continue // a cell whose pod never ran
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = RunCell(context.Background(), spec, out, i, run, io.Discard)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("cell %d: %v", i, err)
		}
	}
	if len(ran) != 2*(len(cells)-1) {
		t.Errorf("ran %v: want each engine of the 5 cells started once", ran)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), specTempPrefix) {
			t.Errorf("left behind %s", e.Name())
		}
	}
	if got, err := Load(out); err != nil || !reflect.DeepEqual(got.Axes, spec.Axes) {
		t.Fatalf("sweep.json: %+v, %v", got, err)
	}
	st := Status(spec, out)
	for _, s := range st {
		want := []string(nil)
		if s.Index == 4 {
			want = []string{"a", "b"}
		}
		if !reflect.DeepEqual(s.Missing, want) || s.Cell != cells[s.Index] {
			t.Errorf("cell %d %s: missing %v, want %v", s.Index, s.Cell.Name(), s.Missing, want)
		}
	}
	// Run twice, a cell writes nothing again.
	ran = nil
	if err := RunCell(context.Background(), spec, out, 0, run, io.Discard); err != nil || len(ran) != 0 {
		t.Errorf("rerun of a finished cell ran %v (%v)", ran, err)
	}
	// Out of range, and another sweep's flags on the same directory.
	if err := RunCell(context.Background(), spec, out, len(cells), run, io.Discard); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("cell %d: %v", len(cells), err)
	}
	other := *ibenchSpec(spec.Engines, []int{0, 3}, []int{20}, []int{1, 4})
	if err := RunCell(context.Background(), &other, out, 0, run, io.Discard); err == nil || !strings.Contains(err.Error(), "holds a different sweep") {
		t.Errorf("another sweep: %v", err)
	}
	// Not a fresh directory: refused.
	dirty := t.TempDir()
	os.WriteFile(filepath.Join(dirty, "notes.txt"), nil, 0o644)
	if err := RunCell(context.Background(), spec, dirty, 0, run, io.Discard); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("non-empty dir: %v", err)
	}
}

// A cell that finds another's spec beside files sorting before it (the
// other's write check, made once its spec was in place) compares with that
// spec rather than calling the directory someone else's.
func TestCreateSpecSeesAnotherCellsStart(t *testing.T) {
	out := t.TempDir()
	for _, n := range []string{results.WriteCheckPrefix + "123", SpecFile, "x0-pad20-c1"} {
		if err := os.WriteFile(filepath.Join(out, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	created, err := createSpec(out, filepath.Join(out, SpecFile), []byte("{}\n"))
	if created || err != nil {
		t.Fatalf("createSpec: created %v, %v; want neither (the other cell's spec is there)", created, err)
	}
	// Without the spec a cell's directory is someone else's: refused.
	os.Remove(filepath.Join(out, SpecFile))
	if _, err := createSpec(out, filepath.Join(out, SpecFile), []byte("{}\n")); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Fatalf("createSpec without a spec: %v", err)
	}
	// Another cell's write check alone (it checks --out before it writes
	// its spec): this cell writes the spec.
	os.Remove(filepath.Join(out, "x0-pad20-c1"))
	if created, err := createSpec(out, filepath.Join(out, SpecFile), []byte("{}\n")); !created || err != nil {
		t.Fatalf("createSpec beside a write check: created %v, %v", created, err)
	}
}
