package linkbench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rumbench/internal/figure"
	"rumbench/internal/results"
	"rumbench/internal/units"
)

// Table prints the published LinkBench table: one row per run, with the
// load rate, requests/s, per-request CPU and KB written and read, and the
// database size after the load and at the end of the request step.
func Table(w io.Writer, labels []string, bundles []*results.Bundle) error {
	fmt.Fprintln(w, "## linkbench")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| engine | load rows/s | req/s | req/s.p99 | CPU/req µs | wKB/req | rKB/req | r/req | proc wKB/req | disk after load GB | disk at end GB | live after load GB | live at end GB | live growth GB |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	var notes []string
	for i, b := range bundles {
		label := b.Run.VariantLabel()
		if i < len(labels) && labels[i] != "" {
			label = labels[i]
		}
		if b.Run.Engine.Note != "" {
			label += " ‡"
			notes = append(notes, "‡ "+b.Run.Engine.Name+": "+b.Run.Engine.Note)
		}
		load, req := b.Steps[StepLoad], b.Steps[StepRequest]
		loadRate := figure.Get(figure.RateAvg, figure.OfOp(load, OpInsert)).TextOr(units.Dash, units.Decimals(0))
		cells := []string{units.Dash, units.Dash, units.Dash, units.Dash, units.Dash, units.Dash, units.Dash}
		if req != nil {
			src := figure.OfOp(req, OpRequest)
			for i, c := range requestCells {
				cells[i] = figure.Get(c.key, src).TextOr(units.Dash, units.Decimals(c.decimals))
			}
			if op := req.Ops[OpRequest]; op != nil && req.Metrics != nil && req.Metrics.ProcWKB != nil && op.Done() > 0 {
				cells[6] = units.Fixed(*req.Metrics.ProcWKB/float64(op.Done()), 2)
			}
			if !req.Complete {
				label += " (incomplete)"
			}
			if ss := req.SteadyState; ss != nil {
				if ss.Reached {
					notes = append(notes, fmt.Sprintf("%s: requests measured after %.1f s of warm-up, when the rule %s held (deviation %.1f%%, slope %.1f%%)",
						label, ss.AtS, ss.Rule, ss.Window.DevPct, ss.Window.SlopePct))
				} else {
					label += " (not steady)"
					notes = append(notes, fmt.Sprintf("%s: NOT STEADY: requests measured after the rule %s ran out without holding (deviation %.1f%%, slope %.1f%%)",
						label, ss.Rule, ss.Window.DevPct, ss.Window.SlopePct))
				}
			}
		}
		liveAfter, liveEnd := live(load), live(req)
		growth := units.Dash
		if liveAfter >= 0 && liveEnd >= 0 {
			growth = units.Fixed(float64(liveEnd-liveAfter)/1e9, 3)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", label, loadRate,
			cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], units.GB(disk(load)), units.GB(disk(req)), units.GB(liveAfter), units.GB(liveEnd), growth)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "req/s: requests of every type per second over the request step (req/s.p99: the rate 99% of intervals met); CPU/req, wKB/req, rKB/req, r/req: the measured process set's CPU µs, device KB written and read, and device reads per request (docs/metrics.md); proc wKB/req: KB the measured processes wrote to storage (/proc/PID/io) per request, which other users of the device do not inflate; disk: on-disk footprint (allocated bytes of the data dir, logs included; metrics.disk_source says which dir) and live: the engine's own live size (docs/metrics.md), at the end of the load and of the request step.")
	for _, n := range notes {
		fmt.Fprintln(w, "- "+n)
	}
	return nil
}

// requestCells are the request step's catalogued figures of the table, in
// its column order, with the decimals the published table prints.
var requestCells = []struct {
	key      string
	decimals int
}{{figure.RateAvg, 0}, {figure.RatePct, 0}, {figure.CPUPerOp, 0}, {figure.WKBPerOp, 2}, {figure.RKBPerOp, 2}, {figure.ReadsPerOp, 3}}

// disk is a step's on-disk footprint at its end, -1 unknown.
func disk(s *results.Step) int64 {
	if s == nil || s.Metrics == nil || s.Metrics.DiskBytes == nil {
		return -1
	}
	return *s.Metrics.DiskBytes
}

// live is the engine's live size at a step's end, -1 unknown.
func live(s *results.Step) int64 {
	if s == nil {
		return -1
	}
	return s.EngineSize
}

// printReport prints the table at the end of a run and keeps it next to
// the bundles as linkbench.md.
func printReport(w io.Writer, bundles []*results.Bundle, out string) error {
	if len(bundles) == 0 {
		return nil
	}
	var sb strings.Builder
	if err := Table(&sb, nil, bundles); err != nil {
		return err
	}
	io.WriteString(w, "\n"+sb.String())
	path := filepath.Join(out, "linkbench.md")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fmt.Fprintf(w, "\nlinkbench table: %s\n", path)
	return nil
}
