package model

import (
	"context"
	"fmt"
	"time"
)

// Quiescer is implemented by engines whose background work (compaction,
// flush, purge, checkpoint, vacuum) can be read from the engine itself.
// Quiesce waits until that work has finished or is below the threshold the
// engine states, or until ctx ends, and says what it waited for. It never
// forces work the engine would not do on its own (no full compaction): it
// only lets the engine finish what the previous steps left (design §13).
type Quiescer interface {
	Quiesce(ctx context.Context) ([]QuiesceWait, error)
}

// QuiesceWait is one thing Quiesce waited for, as run.json records it.
type QuiesceWait struct {
	// What is read, and Until the threshold that ends the wait.
	What  string `json:"what"`
	Until string `json:"until"`
	// Before and After are the readings when the wait began and ended.
	Before string `json:"before"`
	After  string `json:"after"`
	// Seconds waited; Reached is false when ctx ended first.
	Seconds float64 `json:"seconds"`
	Reached bool    `json:"reached"`
}

// QuiescePoll is how often WaitIdle reads the engine: often enough that a
// wait ends within a few percent of a second-long background job, seldom
// enough that the reads are no load.
const QuiescePoll = 50 * time.Millisecond

// WaitIdle polls read until it reports idle or ctx ends. read returns
// whether the engine is idle and a reading to record (e.g. "2 running,
// debt 14 MB"). An error from read ends the wait with that error; ctx
// ending is not an error: the wait is recorded as not reached.
func WaitIdle(ctx context.Context, what, until string, read func(context.Context) (bool, string, error)) (QuiesceWait, error) {
	w := QuiesceWait{What: what, Until: until}
	start := time.Now()
	t := time.NewTicker(QuiescePoll)
	defer t.Stop()
	for {
		idle, reading, err := read(ctx)
		if err != nil && ctx.Err() == nil {
			return w, fmt.Errorf("quiesce: read %s: %w", what, err)
		}
		if err == nil {
			if w.Before == "" {
				w.Before = reading
			}
			w.After = reading
			w.Reached = idle
		}
		if w.Reached || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
	w.Seconds = time.Since(start).Seconds()
	return w, nil
}
