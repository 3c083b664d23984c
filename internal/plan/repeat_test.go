package plan

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rumbench/internal/launch"
	"rumbench/internal/report"
)

// Repetitions run one round of engines each, from scratch, into rep-k,
// with the cooldown between them, and end with the summary.
func TestRunRepeated(t *testing.T) {
	r := request(t, "ibench", "--rows", "200", "--clients", "1", "--steps", "l.i0")
	r.Engines, r.Cooldown = Engines("null", "sqlite"), 10*time.Millisecond
	p, err := PlanRun(r)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	ro := p.Options(out, &launch.Memory{}, nil)
	ro.Live, ro.Log = io.Discard, io.Discard
	var w bytes.Buffer
	var runOut []string
	summaries := 0
	cur := ""
	err = RunRepeated(context.Background(), &ro, 2, out, &cur, &w, func() (*report.Report, error) {
		summaries++
		runOut = append(runOut, cur)
		return nil, nil
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, w.String())
	}
	for _, dir := range []string{"rep-1/null", "rep-1/sqlite", "rep-2/null", "rep-2/sqlite"} {
		if _, err := os.Stat(filepath.Join(out, dir, "run.json")); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
	}
	text := w.String()
	r1, cool, r2 := strings.Index(text, "== repetition 1/2"), strings.Index(text, "cooling down for 10ms"), strings.Index(text, "== repetition 2/2")
	if r1 < 0 || cool < r1 || r2 < cool || !strings.Contains(text, "results: "+out) {
		t.Errorf("output:\n%s", text)
	}
	if summaries != 1 || runOut[0] != filepath.Join(out, "rep-2") {
		t.Errorf("%d summaries, the last repetition's dir %v", summaries, runOut)
	}
}

// An interrupted repetition stops the rest and says how many completed.
func TestRunRepeatedInterrupted(t *testing.T) {
	r := request(t, "ibench", "--rows", "200", "--clients", "1", "--steps", "l.i0")
	r.Engines = Engines("null")
	p, err := PlanRun(r)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	ro := p.Options(out, &launch.Memory{}, nil)
	ro.Live, ro.Log, ro.Cooldown = io.Discard, io.Discard, time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	var w syncBuffer
	cur := ""
	done := make(chan error)
	go func() {
		done <- RunRepeated(ctx, &ro, 3, out, &cur, &w, func() (*report.Report, error) { return nil, nil })
	}()
	// The first repetition ends, then the cooldown waits: interrupt it.
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(w.String(), "cooling down") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("an interrupted repetition returned no error")
	}
	if !strings.Contains(w.String(), "stopped after 1 of 3 repetitions complete") {
		t.Errorf("output:\n%s", w.String())
	}
}

// syncBuffer is a buffer one goroutine writes while another reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
