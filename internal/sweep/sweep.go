// Package sweep runs a workload over a grid of variants × the workload's
// axes (workload.Sweeper: the insert benchmark's secondary indexes × row
// size × clients, the hot-row sweep's tables × clients), one full run per
// cell, resumably, and reads the grid back for the matrix tables.
package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"rumbench/internal/results"
	"rumbench/internal/workload"
)

// SpecFile is the sweep's description in its output directory.
const SpecFile = "sweep.json"

// Spec is what a sweep runs: the workload, its axes and the settings
// every cell shares.
type Spec struct {
	Engines []string `json:"engines"`
	// Workload is the workload swept; Axes are its axes
	// (workload.Sweeper) and Skip the cells of their grid it does not run.
	Workload string   `json:"workload"`
	Axes     []Axis   `json:"axes"`
	Skip     []string `json:"skip,omitempty"`
	// Shared holds the remaining settings, recorded for the reader.
	Shared map[string]any `json:"shared,omitempty"`
	// Repeat is how many times each cell × engine runs (--repeat); with
	// more than one, repetition k of a cell's engine is in
	// <cell>/rep-k/<engine>.
	Repeat int `json:"repeat,omitempty"`
	// Variants maps each label of Engines to its engine when the sweep
	// runs labelled variants (--engine LABEL=ENGINE, --vary); nil when
	// Engines are engine names.
	Variants map[string]string `json:"variants,omitempty"`
}

// Axis is one of a workload's axes and its values (workload.Axis).
type Axis struct {
	Name   string `json:"name"`
	Prefix string `json:"prefix"`
	Values []int  `json:"values"`
}

// At is the cell's axis values, by axis name.
func (s *Spec) At(c Cell) workload.Point {
	p := workload.Point{}
	for i, part := range strings.Split(c.name, "-") {
		if i < len(s.Axes) {
			p[s.Axes[i].Name], _ = strconv.Atoi(strings.TrimPrefix(part, s.Axes[i].Prefix))
		}
	}
	return p
}

// CellAt is the cell at p.
func (s *Spec) CellAt(p workload.Point) Cell {
	return Cell{name: workload.CellName(s.workloadAxes(), p)}
}

func (s *Spec) workloadAxes() []workload.Axis {
	out := make([]workload.Axis, len(s.Axes))
	for i, a := range s.Axes {
		out[i] = workload.Axis{Name: a.Name, Prefix: a.Prefix}
	}
	return out
}

// grid is every point of the axes, the last axis slowest.
func (s *Spec) grid() []workload.Point {
	out := []workload.Point{{}}
	for _, a := range s.Axes {
		var next []workload.Point
		for _, v := range a.Values {
			for _, p := range out {
				q := workload.Point{a.Name: v}
				for k, x := range p {
					q[k] = x
				}
				next = append(next, q)
			}
		}
		out = next
	}
	return out
}

// Banner says what every cell runs, for the sweep's first line.
func (s *Spec) Banner() string {
	if rec, ok := s.sweeper().(workload.SweepRecorder); ok {
		return rec.SweepBanner(s.Shared)
	}
	return "workload " + s.Workload
}

// sweeper is the swept workload's Sweeper, nil when it is not registered.
func (s *Spec) sweeper() workload.Sweeper {
	sw, _ := workload.SweeperOf(s.Workload)
	return sw
}

// EngineOf is the engine of the variant labelled label (label itself when
// the sweep's entries are engine names).
func (s *Spec) EngineOf(label string) string {
	if e, ok := s.Variants[label]; ok {
		return e
	}
	return label
}

// Reps is the number of repetitions (at least 1).
func (s *Spec) Reps() int { return max(1, s.Repeat) }

// RunDir is where one engine's run of a cell is, for repetition k
// (1-based; ignored without --repeat).
func (s *Spec) RunDir(out string, c Cell, engine string, k int) string {
	if s.Reps() == 1 {
		return filepath.Join(out, c.Name(), engine)
	}
	return filepath.Join(results.RepDir(filepath.Join(out, c.Name()), k), engine)
}

// Cell is one point of the grid (engines are run inside it), named over
// the spec's Axes (Spec.At reads it).
type Cell struct{ name string }

// Name is the cell's directory name, e.g. x3-pad256-c1 (t4-c16 of the
// hot-row sweep).
func (c Cell) Name() string { return c.name }

// Cells lists the grid's cells, the last axis slowest (so one matrix's
// cells run together), without the cells Skip lists.
func (s *Spec) Cells() []Cell {
	var out []Cell
	for _, p := range s.grid() {
		if c := s.CellAt(p); !slices.Contains(s.Skip, c.Name()) {
			out = append(out, c)
		}
	}
	return out
}

// Validate checks the axes.
func (s *Spec) Validate() error {
	if len(s.Engines) == 0 {
		return errors.New("no engine given: use --engine")
	}
	for _, a := range s.Axes {
		if len(a.Values) == 0 {
			return fmt.Errorf("--%s is empty: give a comma list, e.g. --%s 1,2", a.Name, a.Name)
		}
	}
	if len(s.Cells()) == 0 {
		return fmt.Errorf("no cell to run: the %s sweep skips every cell of this grid", s.Workload)
	}
	return nil
}

// RunFunc runs one engine of one cell into dir (which must not hold a
// bundle yet).
type RunFunc func(ctx context.Context, cell Cell, engine, dir string) error

// Run runs every cell × engine not finished yet under out, printing one
// progress line per run with the sweep's ETA. A cell's engine is finished
// when its bundle says complete; an unfinished one is moved aside and run
// again. It stops at the first failure or interruption (a rerun resumes).
func Run(ctx context.Context, spec *Spec, out string, run RunFunc, log io.Writer) error {
	return runCells(ctx, spec, out, func(Cell) bool { return true }, run, log)
}

// RunCell runs one cell (every engine and repetition of it) as Run does:
// what is finished is not run again, an unfinished run is moved aside and
// redone. Cells of one sweep may run at once in separate processes (the
// pods of a Kubernetes Indexed Job) sharing out.
func RunCell(ctx context.Context, spec *Spec, out string, index int, run RunFunc, log io.Writer) error {
	cells := spec.Cells()
	if index < 0 || index >= len(cells) {
		return fmt.Errorf("cell %d is out of range: this sweep has %d cells, indexed 0 to %d", index, len(cells), len(cells)-1)
	}
	want := cells[index]
	return runCells(ctx, spec, out, func(c Cell) bool { return c == want }, run, log)
}

func runCells(ctx context.Context, spec *Spec, out string, pick func(Cell) bool, run RunFunc, log io.Writer) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", out, err)
	}
	if err := checkSpec(spec, out); err != nil {
		return err
	}
	type job struct {
		cell   Cell
		engine string
		rep    int
		dir    string
	}
	var todo []job
	done := 0
	// Repetitions are the outer loop: every cell and engine runs once
	// before any runs again, so slow drift of the machine spreads over
	// all of them.
	for k := 1; k <= spec.Reps(); k++ {
		for _, c := range spec.Cells() {
			if !pick(c) {
				continue
			}
			for _, e := range spec.Engines {
				dir := spec.RunDir(out, c, e, k)
				if Finished(dir) {
					done++
					continue
				}
				todo = append(todo, job{c, e, k, dir})
			}
		}
	}
	total := done + len(todo)
	if done > 0 {
		fmt.Fprintf(log, "sweep: %d of %d runs already finished in %s, resuming\n", done, total, out)
	}
	start := time.Now()
	for i, j := range todo {
		dir := j.dir
		if _, err := os.Stat(dir); err == nil {
			aside := fmt.Sprintf("%s.unfinished-%s", dir, time.Now().Format("20060102-150405"))
			if err := os.Rename(dir, aside); err != nil {
				return fmt.Errorf("move the unfinished run %s aside: %w", dir, err)
			}
			fmt.Fprintf(log, "sweep: moved the unfinished run to %s\n", aside)
		}
		t0 := time.Now()
		err := run(ctx, j.cell, j.engine, dir)
		took := time.Since(t0)
		left := ""
		if n := i + 1; n < len(todo) {
			eta := time.Since(start) / time.Duration(n) * time.Duration(len(todo)-n)
			left = fmt.Sprintf(", ETA %s", eta.Round(time.Second))
		}
		status := "done"
		if err != nil {
			status = "FAILED: " + err.Error()
		}
		name := j.cell.Name()
		if spec.Reps() > 1 {
			name += fmt.Sprintf(" rep %d/%d", j.rep, spec.Reps())
		}
		fmt.Fprintf(log, "sweep: run %d/%d %s %s %s in %s%s\n", done+i+1, total, name, j.engine, status, took.Round(time.Second), left)
		if err != nil {
			return fmt.Errorf("sweep cell %s, engine %s: %w", j.cell.Name(), j.engine, err)
		}
	}
	return nil
}

// Finished reports whether dir holds a complete bundle.
func Finished(dir string) bool {
	raw, err := os.ReadFile(filepath.Join(dir, results.RunFile))
	if err != nil {
		return false
	}
	var r struct {
		Complete bool `json:"complete"`
	}
	return json.Unmarshal(raw, &r) == nil && r.Complete
}

// checkSpec writes the spec, or checks that a rerun asks for the same grid.
// Processes that start at once (the cells of an Indexed Job) agree on one
// sweep.json: it appears whole (linked into place) or not at all.
func checkSpec(spec *Spec, out string) error {
	path := filepath.Join(out, SpecFile)
	want, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		have, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			created, err := createSpec(out, path, append(want, '\n'))
			if err != nil {
				return err
			}
			if created {
				return nil
			}
			if attempt > 0 {
				return fmt.Errorf("%s appeared and vanished while this sweep started: is another process removing it?", path)
			}
			continue // another process wrote it first: compare with it
		case err != nil:
			return fmt.Errorf("read %s: %w", path, err)
		}
		var old Spec
		if err := json.Unmarshal(have, &old); err != nil {
			return fmt.Errorf("%s is not a sweep description: %w", path, err)
		}
		oldJSON, _ := json.MarshalIndent(&old, "", "  ")
		if string(oldJSON) != string(want) {
			return fmt.Errorf("%s holds a different sweep (its %s differs from these flags): resume it with the same flags, or choose another --out", out, SpecFile)
		}
		return nil
	}
}

// specTempPrefix names a sweep.json being written.
const specTempPrefix = "." + SpecFile + ".tmp-"

// createSpec writes a new sweep's spec; false when another process wrote
// one first. out must hold nothing else but what a fresh volume holds.
func createSpec(out, path string, data []byte) (bool, error) {
	entries, err := os.ReadDir(out)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", out, err)
	}
	// The spec decides, whatever sorts before it: a cell started at once
	// may have written it and begun its run (a write check, its cell's
	// directory) while this one read.
	for _, e := range entries {
		if e.Name() == SpecFile {
			return false, nil
		}
	}
	for _, e := range entries {
		switch n := e.Name(); {
		case n == "lost+found" || strings.HasPrefix(n, specTempPrefix) || strings.HasPrefix(n, results.WriteCheckPrefix):
			// A fresh ext4 volume's own directory; another process's spec
			// being written, or its check that it may write here (made
			// before its spec, and again after it).
		default:
			return false, fmt.Errorf("%s is not empty and holds no %s: choose another --out for the sweep", out, SpecFile)
		}
	}
	tmp, err := os.CreateTemp(out, specTempPrefix)
	if err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	// A link, unlike a rename, fails when the name exists.
	err = os.Link(tmp.Name(), path)
	switch {
	case errors.Is(err, fs.ErrExist):
		return false, nil
	case err != nil:
		// A file system without hard links: a rename is still atomic, and
		// processes of one sweep write the same bytes.
		if err := os.Rename(tmp.Name(), path); err != nil {
			return false, fmt.Errorf("write %s: %w", path, err)
		}
	}
	return true, nil
}

// Load reads a sweep directory's spec.
func Load(dir string) (*Spec, error) {
	raw, err := os.ReadFile(filepath.Join(dir, SpecFile))
	if err != nil {
		return nil, err
	}
	var s Spec
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, SpecFile), err)
	}
	return &s, nil
}

// IsSweep reports whether dir is a sweep's output directory.
func IsSweep(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, SpecFile))
	return err == nil
}

// CellStatus is what a sweep directory holds of one cell.
type CellStatus struct {
	// Index is the cell's place in Cells (what --cell takes).
	Index int
	Cell  Cell
	// Missing lists the engines (with " rep k" in a repeated sweep) whose
	// runs of the cell are not finished; empty when the cell is complete.
	Missing []string
}

// Status lists every cell of the sweep in out and what of it is missing.
func Status(spec *Spec, out string) []CellStatus {
	var all []CellStatus
	for i, c := range spec.Cells() {
		st := CellStatus{Index: i, Cell: c}
		for k := 1; k <= spec.Reps(); k++ {
			for _, e := range spec.Engines {
				if Finished(spec.RunDir(out, c, e, k)) {
					continue
				}
				if spec.Reps() > 1 {
					e = fmt.Sprintf("%s rep %d", e, k)
				}
				st.Missing = append(st.Missing, e)
			}
		}
		all = append(all, st)
	}
	return all
}
