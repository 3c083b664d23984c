package report

import (
	"testing"

	"gonum.org/v1/plot"
)

func TestFmtEng(t *testing.T) {
	for v, want := range map[float64]string{
		2500000: "2.5M", 2_000_000_000: "2G", 1500: "1.5k", 999: "999", 0.25: "0.25", 0: "0",
		1_234_567: "1.23M", -45000: "-45k", 100_000: "100k", 0.001: "0.001", 12.345: "12.3",
	} {
		if got := fmtEng(v); got != want {
			t.Errorf("fmtEng(%g) = %q, want %q", v, got, want)
		}
	}
}

func TestEngTicksRelabel(t *testing.T) {
	ticks := engTicks{plot.DefaultTicks{}}.Ticks(0, 3_000_000)
	labelled := 0
	for _, tk := range ticks {
		if tk.Label == "" {
			continue
		}
		labelled++
		if tk.Label != fmtEng(tk.Value) {
			t.Errorf("tick %g labelled %q", tk.Value, tk.Label)
		}
	}
	if labelled < 2 {
		t.Errorf("%d labelled ticks", labelled)
	}
}
