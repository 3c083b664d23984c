package main

import (
	"time"

	"github.com/spf13/pflag"
)

func addRepeatFlag(fs *pflag.FlagSet, n *int) {
	fs.IntVar(n, "repeat", 1, "run each engine (each cell of a sweep) this many times from scratch, interleaved (A B A B ...), into <out>/rep-1, rep-2, ...; reports give medians with 95% intervals and test differences (Mann–Whitney U); at least 4 to ever show a significant difference, 6 for a finite interval")
}

// addCooldownFlag adds --cooldown (run, sweep).
func addCooldownFlag(fs *pflag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "cooldown", 0, "pause this long between two runs (engines, repetitions, sweep cells), so one run's hot device and CPU do not start the next; recorded in run.json's config (cooldown_s)")
}
