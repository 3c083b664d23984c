package linkbench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rumbench/internal/results"
)

// Table prints the published LinkBench table: one row per run, with the
// load rate, requests/s, per-request CPU and KB written and read, and the
// database size after the load and at the end of the request step.
func Table(w io.Writer, labels []string, bundles []*results.Bundle) error {
	fmt.Fprintln(w, "## linkbench")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| engine | load rows/s | req/s | req/s.p99 | CPU/req µs | wKB/req | rKB/req | r/req | proc wKB/req | size after load GB | size at end GB | growth GB |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	var notes []string
	for i, b := range bundles {
		label := b.Run.Engine.Name
		if i < len(labels) && labels[i] != "" {
			label = labels[i]
		}
		if b.Run.Engine.Note != "" {
			label += " ‡"
			notes = append(notes, "‡ "+b.Run.Engine.Name+": "+b.Run.Engine.Note)
		}
		load, req := b.Steps[StepLoad], b.Steps[StepRequest]
		loadRate := "—"
		if load != nil {
			if op := load.Ops[OpInsert]; op != nil && op.RateAvg != nil {
				loadRate = fmt.Sprintf("%.0f", *op.RateAvg)
			}
		}
		cells := []string{"—", "—", "—", "—", "—", "—", "—"}
		if req != nil {
			if op := req.Ops[OpRequest]; op != nil {
				cells[0] = fptr(op.RateAvg, "%.0f")
				cells[1] = fptr(op.RatePct, "%.0f")
				if req.Metrics != nil && req.Metrics.ProcWKB != nil && op.Done() > 0 {
					v := *req.Metrics.ProcWKB / float64(op.Done())
					cells[6] = fptr(&v, "%.2f")
				}
			}
			if req.Metrics != nil && req.Metrics.PerOp != nil {
				if c := req.Metrics.PerOp[OpRequest]; c != nil {
					cells[2] = fptr(c.CPUUs, "%.0f")
					cells[3] = fptr(c.WKB, "%.2f")
					cells[4] = fptr(c.RKB, "%.2f")
					cells[5] = fptr(c.Reads, "%.3f")
				}
			}
			if !req.Complete {
				label += " (incomplete)"
			}
		}
		after, src1 := size(load)
		end, src2 := size(req)
		growth := "—"
		if after >= 0 && end >= 0 {
			growth = fmt.Sprintf("%.3f", float64(end-after)/1e9)
		}
		if src1 == "engine" || src2 == "engine" {
			notes = append(notes, label+": sizes are the engine's own report of rumbench's database (no data dir measured)")
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", label, loadRate,
			cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], gb(after), gb(end), growth)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "req/s: requests of every type per second over the request step (req/s.p99: the rate 99% of intervals met); CPU/req, wKB/req, rKB/req, r/req: the measured process set's CPU µs, device KB written and read, and device reads per request (docs/metrics.md); proc wKB/req: KB the measured processes wrote to storage (/proc/PID/io) per request, which other users of the device do not inflate; size: allocated bytes of the data dir at the end of the load and of the request step.")
	for _, n := range notes {
		fmt.Fprintln(w, "- "+n)
	}
	return nil
}

func fptr(p *float64, f string) string {
	if p == nil {
		return "—"
	}
	return fmt.Sprintf(f, *p)
}

// size is a step's size at its end: the data dir's allocated bytes, or the
// engine's own report when no data dir was measured.
func size(s *results.Step) (int64, string) {
	if s == nil {
		return -1, ""
	}
	if s.Metrics != nil && s.Metrics.SizeBytes != nil {
		return *s.Metrics.SizeBytes, "data_dir"
	}
	if s.EngineSize >= 0 {
		return s.EngineSize, "engine"
	}
	return -1, ""
}

func gb(n int64) string {
	if n < 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f", float64(n)/1e9)
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
