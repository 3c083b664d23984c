// Package plan turns a flag-free request into the options of the runner,
// the sweep and crashtest: it checks the input, applies presets, chooses
// intervals and the memory policy, and fills in run.json's config. The
// command layer only parses flags into requests and prints.
package plan

import (
	"fmt"
	"strings"
	"time"

	"rumbench/internal/results"
	"rumbench/internal/runner"
)

// MaxRepeat bounds --repeat: beyond it a typo (--repeat 1000) would run for
// days before anyone noticed.
const MaxRepeat = 100

// bad marks an error as the user's input (one line, exit 2).
func bad(err error) error { return &runner.BadInputError{Err: err} }

// CheckRepeat refuses a --repeat out of 1..MaxRepeat.
func CheckRepeat(n int) error {
	if n < 1 || n > MaxRepeat {
		return bad(fmt.Errorf("--repeat must be between 1 and %d, got %d", MaxRepeat, n))
	}
	return nil
}

// CheckCooldown refuses a negative --cooldown.
func CheckCooldown(d time.Duration) error {
	if d < 0 {
		return bad(fmt.Errorf("--cooldown must be 0 or more, got %s", d))
	}
	return nil
}

// CheckStepPause refuses a negative --step-pause.
func CheckStepPause(d time.Duration) error {
	if d < 0 {
		return bad(fmt.Errorf("--step-pause must be 0 or more, got %s", d))
	}
	return nil
}

// checkRatePercentile refuses a --rate-percentile out of (0, 100].
func checkRatePercentile(p float64) error {
	if !(p > 0 && p <= 100) {
		return fmt.Errorf("--rate-percentile must be above 0 and at most 100, got %g", p)
	}
	return nil
}

// RepeatDirs are the --out directories of the repetitions: out itself for
// one run, else out/rep-1 ... out/rep-n.
func RepeatDirs(out string, n int) []string {
	if n <= 1 {
		return []string{out}
	}
	dirs := make([]string, n)
	for k := range dirs {
		dirs[k] = results.RepDir(out, k+1)
	}
	return dirs
}

// ParseEngineOpts turns repeated key=value settings (--engine-opt) into a
// map; the same key for the same scope twice is refused.
func ParseEngineOpts(kvs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--engine-opt %q is not key=value (e.g. --engine-opt cache_size=1GB)", kv)
		}
		// The same key for the same scope (all engines, or engine.key)
		// twice: the last would silently win.
		if prev, dup := out[k]; dup {
			return nil, fmt.Errorf("--engine-opt %s is given twice (%s=%s and %s): give it once", k, k, prev, kv)
		}
		out[k] = v
	}
	return out, nil
}
