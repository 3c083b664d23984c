package ibench

import (
	"context"
	"strings"
	"testing"
	"time"

	"rumbench/internal/model"
)

// The maint step records what it waited for: on Pebble a wait that was
// reached and says no compaction runs; on bbolt, which has no background
// work, that there was nothing to wait for; and the pause.
func TestMaintainQuiesces(t *testing.T) {
	for _, eng := range []string{"pebble", "bbolt"} {
		t.Run(eng, func(t *testing.T) {
			b, err := New(Config{Clients: 1, Rows: 20000, Indexes: 1, PadMin: 10, PadMax: 20, PadRandomPct: 50,
				Seed: 5, Steps: []string{StepLoad, StepMaintain}, QuiescePauseSeconds: 0.2, QuiesceMaxSeconds: 60})
			if err != nil {
				t.Fatal(err)
			}
			db := openEngine(t, eng)
			if err := b.Prepare(context.Background(), db); err != nil {
				t.Fatal(err)
			}
			runStep(t, db, b, StepLoad)
			sum := runStep(t, db, b, StepMaintain)
			d := sum.Details
			if d["quiesce_pause_s"] != 0.2 {
				t.Errorf("quiesce_pause_s = %v, want 0.2", d["quiesce_pause_s"])
			}
			switch eng {
			case "pebble":
				waits, ok := d["quiesce"].([]model.QuiesceWait)
				if !ok || len(waits) != 1 || !waits[0].Reached || d["quiesce_reached"] != true ||
					!strings.HasPrefix(waits[0].After, "0 flushes, 0 compactions running") {
					t.Fatalf("pebble quiesce = %#v (reached %v)", d["quiesce"], d["quiesce_reached"])
				}
			case "bbolt":
				if s, _ := d["quiesce"].(string); !strings.HasPrefix(s, "nothing to wait for") {
					t.Fatalf("bbolt quiesce = %#v", d["quiesce"])
				}
			}
		})
	}
}

// The pause is the reference's min(1200, 60 + rows/1M) s, except in the
// quick preset; the wait's limit is a minute there and an hour otherwise.
func TestQuiesceDefaults(t *testing.T) {
	for _, tc := range []struct {
		preset string
		rows   int64
		want   time.Duration
	}{
		{"quick", 2_000_000, time.Second},
		{"small", 4_000_000, 64 * time.Second},
		{"reference", 160_000_000, 220 * time.Second},
		{"reference", 5_000_000_000, 1200 * time.Second},
		{"small", 500_000, 60500 * time.Millisecond},
	} {
		if got := QuiescePause(tc.preset, tc.rows); got != tc.want {
			t.Errorf("QuiescePause(%s, %d) = %v, want %v", tc.preset, tc.rows, got, tc.want)
		}
	}
	if QuiesceMax("quick") != time.Minute || QuiesceMax("small") != time.Hour {
		t.Errorf("QuiesceMax: quick %v, small %v", QuiesceMax("quick"), QuiesceMax("small"))
	}
}
