package workload

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// FlagOwners are the registered workloads other than except whose own
// flags include name (a flag given to the wrong workload).
func FlagOwners(name, except string) []string {
	var owners []string
	for _, w := range Names() {
		if w == except {
			continue
		}
		d, _ := Lookup(w)
		fs := pflag.NewFlagSet(w, pflag.ContinueOnError)
		d.Flags(fs)
		if fs.Lookup(name) != nil {
			owners = append(owners, w)
		}
	}
	return owners
}

// IntervalHelp lists --interval's default per workload and preset, from the
// presets themselves: the presets that set their own, and the rest's.
func IntervalHelp() string {
	var own, steps []string
	for _, n := range Names() {
		d, _ := Lookup(n)
		for _, p := range d.Presets {
			if p.RunInterval() != DefaultInterval {
				own = append(own, fmt.Sprintf("%s %s %s", n, p.Name, p.RunInterval()))
			}
			if len(p.StepIntervals) > 0 {
				steps = append(steps, n+" "+p.Name+" "+StepIntervalsHelp(p.StepIntervals))
			}
		}
	}
	h := ""
	if len(steps) > 0 {
		h = "(steps with an interval of their own unless --interval is given: " + strings.Join(steps, "; ") + ") "
	}
	h += fmt.Sprintf("(default %s", DefaultInterval)
	if len(own) > 0 {
		h += "; from --preset: " + strings.Join(own, ", ")
	}
	return h + ")"
}

// StepIntervalsHelp lists a preset's own step intervals, by step name:
// "l.i0 100ms, l.i2 50ms".
func StepIntervalsHelp(m map[string]time.Duration) string {
	var parts []string
	for _, step := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, step+" "+m[step].String())
	}
	return strings.Join(parts, ", ")
}

// List writes the registered workloads with their presets, marking def as
// the default (`rumbench workloads`).
func List(w io.Writer, def string) {
	for _, n := range Names() {
		d, _ := Lookup(n)
		mark := ""
		if n == def {
			mark = " (default)"
		}
		fmt.Fprintf(w, "%s%s: %s\n", n, mark, d.Description)
		for _, p := range d.Presets {
			fmt.Fprintf(w, "    --preset %-10s %s\n", p.Name, p.Description)
		}
	}
}
