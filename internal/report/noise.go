package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"rumbench/internal/results"
)

// NoiseCores is how much of a core other processes or the hypervisor may
// take during a step before the report warns (the sampler records both,
// docs/metrics.md).
const NoiseCores = 0.1

// checkNoise warns, per run, about the steps (of any repetition) during
// which processes outside the measured set used, or the hypervisor stole,
// more than NoiseCores of a core.
func (r *Report) checkNoise() {
	for _, run := range r.Runs {
		bundles := run.Reps
		if len(bundles) == 0 {
			bundles = []*Bundle{run.Bundle}
		}
		var noisy, ioNoisy []string
		for _, b := range bundles {
			for _, name := range b.StepNames() {
				s := b.Steps[name]
				if s == nil || s.Metrics == nil {
					continue
				}
				// /proc/stat counts each CPU's time in 10 ms ticks: over a
				// short span two ticks per CPU are a real share of a core.
				margin := 0.0
				if m := s.Metrics; m.NoiseSpanS != nil && *m.NoiseSpanS > 0 {
					margin = 0.02 * float64(max(1, b.Run.Host.Cores)) / *m.NoiseSpanS
				}
				where := name
				if len(run.Reps) > 0 {
					where += " (" + filepath.Base(filepath.Dir(b.Dir)) + ")"
				}
				if msg := s.Metrics.NoisyIO(); msg != "" {
					ioNoisy = append(ioNoisy, where+": "+msg)
				}
				var parts []string
				if m := s.Metrics; m.OtherCPUCores != nil && *m.OtherCPUCores-margin > NoiseCores {
					parts = append(parts, fmt.Sprintf("other processes %.2f cores", *m.OtherCPUCores))
				}
				if m := s.Metrics; m.StealCores != nil && *m.StealCores-margin > NoiseCores {
					parts = append(parts, fmt.Sprintf("steal %.2f cores", *m.StealCores))
				}
				if len(parts) == 0 {
					continue
				}
				noisy = append(noisy, where+": "+strings.Join(parts, ", "))
			}
		}
		if len(noisy) > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("WARNING: #%d %s ran on a busy host in %d step(s) (over %.1f of a core used by other processes or stolen by the hypervisor): %s; its figures include that noise (repeat the run, --repeat, to see how much)",
				run.Num, run.Label, len(noisy), NoiseCores, strings.Join(firstFour(noisy), "; ")))
		}
		if len(ioNoisy) > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("WARNING: #%d %s shared its device with other processes' IO in %d step(s) (over %.0f%% of the device's reads or writes): %s; its device figures (wKB, rKB, r per operation, write_amp) include that IO (repeat the run on a quiet device)",
				run.Num, run.Label, len(ioNoisy), results.NoiseIOShare*100, strings.Join(firstFour(ioNoisy), "; ")))
		}
	}
}

// firstFour is at most four of a list, with how many more there are.
func firstFour(list []string) []string {
	if len(list) <= 4 {
		return list
	}
	return append(list[:4:4], fmt.Sprintf("and %d more", len(list)-4))
}
