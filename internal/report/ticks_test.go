package report

import (
	"testing"

	"rumbench/internal/units"

	"gonum.org/v1/plot"
)

func TestEngTicksRelabel(t *testing.T) {
	ticks := engTicks{plot.DefaultTicks{}}.Ticks(0, 3_000_000)
	labelled := 0
	for _, tk := range ticks {
		if tk.Label == "" {
			continue
		}
		labelled++
		if tk.Label != units.Eng(tk.Value) {
			t.Errorf("tick %g labelled %q", tk.Value, tk.Label)
		}
	}
	if labelled < 2 {
		t.Errorf("%d labelled ticks", labelled)
	}
}
