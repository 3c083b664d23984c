package workload

import (
	"fmt"
	"io"
	"strings"

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
	var own []string
	for _, n := range Names() {
		d, _ := Lookup(n)
		for _, p := range d.Presets {
			if p.RunInterval() != DefaultInterval {
				own = append(own, fmt.Sprintf("%s %s %s", n, p.Name, p.RunInterval()))
			}
		}
	}
	h := fmt.Sprintf("(default %s", DefaultInterval)
	if len(own) > 0 {
		h += "; from --preset: " + strings.Join(own, ", ")
	}
	return h + ")"
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
