package sweep

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRun is a test double for a cell's run: it writes a bundle's run.json
// (complete unless told to fail) and counts the runs.
type fakeRun struct {
	runs   []string
	failAt string
}

func (f *fakeRun) run(_ context.Context, c Cell, engine, dir string) error {
	f.runs = append(f.runs, c.Name()+"/"+engine)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	complete := c.Name()+"/"+engine != f.failAt
	body := `{"schema_version": 2, "complete": false}`
	if complete {
		body = `{"schema_version": 2, "complete": true}`
	}
	if err := os.WriteFile(filepath.Join(dir, "run.json"), []byte(body), 0o644); err != nil {
		return err
	}
	if !complete {
		return errors.New("engine failed")
	}
	return nil
}

func TestSweepResumes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sw")
	spec := ibenchSpec([]string{"a", "b"}, []int{0, 3}, []int{256}, []int{1, 4})
	f := &fakeRun{failAt: "x3-pad256-c1/b"}
	var log bytes.Buffer
	if err := Run(context.Background(), spec, out, f.run, &log); err == nil {
		t.Fatal("a failing run did not stop the sweep")
	}
	if len(f.runs) != 4 {
		t.Fatalf("ran %v before the failure, want 4 runs", f.runs)
	}
	if !strings.Contains(log.String(), "run 4/8 x3-pad256-c1 b FAILED") {
		t.Errorf("progress lines:\n%s", log.String())
	}
	// The rerun skips the 3 finished runs, moves the failed one aside and
	// runs the remaining 5.
	f2 := &fakeRun{}
	log.Reset()
	if err := Run(context.Background(), spec, out, f2.run, &log); err != nil {
		t.Fatal(err)
	}
	if len(f2.runs) != 5 || f2.runs[0] != "x3-pad256-c1/b" {
		t.Errorf("resumed runs %v, want 5 starting with the failed one", f2.runs)
	}
	if !strings.Contains(log.String(), "3 of 8 runs already finished") || !strings.Contains(log.String(), "moved the unfinished run") {
		t.Errorf("resume log:\n%s", log.String())
	}
	if !strings.Contains(log.String(), "ETA") {
		t.Errorf("no ETA in:\n%s", log.String())
	}
	// A different grid in the same directory is refused.
	other := *ibenchSpec(spec.Engines, []int{0, 1}, []int{256}, []int{1, 4})
	if err := Run(context.Background(), &other, out, f2.run, &log); err == nil || !strings.Contains(err.Error(), "different sweep") {
		t.Errorf("different grid: %v", err)
	}
}

func TestSweepCellsAndBadInput(t *testing.T) {
	spec := ibenchSpec([]string{"a"}, []int{0, 1, 2, 3}, []int{256, 10240}, []int{1, 4})
	if n := len(spec.Cells()); n != 16 {
		t.Errorf("%d cells, want 16", n)
	}
	// Clients, then row size, then index count, slowest to fastest.
	if got := spec.Cells()[15].Name(); got != "x3-pad10240-c4" || spec.Cells()[1].Name() != "x1-pad256-c1" {
		t.Errorf("cells %v", spec.Cells())
	}
	for _, bad := range []*Spec{
		ibenchSpec(nil, []int{0}, []int{1}, []int{1}),
		ibenchSpec([]string{"a"}, []int{0}, nil, []int{1}),
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v validated", bad)
		}
	}
}
