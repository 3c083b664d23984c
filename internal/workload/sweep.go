package workload

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// Sweeper is implemented by a workload `rumbench sweep` can run: a grid of
// cells over the workload's axes (integers, such as tables and clients) ×
// the variants, each cell a full run of the workload. The sweep core (plan,
// execute, internal/sweep) knows the grid only through it, and through
// the optional SweepRecorder (how sweep.json records the sweep) and
// SweepReporter (matrices of the workload's own) a Sweeper may implement.
type Sweeper interface {
	// SweepAxes are the grid's axes, in the order of a cell's name
	// (t4-c16: tables, then clients); the last varies slowest.
	SweepAxes() []Axis
	// SweepFlags declares the settings every run of the sweep shares (not
	// the axes, which the sweep declares from SweepAxes) into fs, and
	// returns how a cell's configuration is made from them once parsed.
	SweepFlags(fs *pflag.FlagSet) CellConfigurer
	// SweepMatrices are what the sweep's matrices show.
	SweepMatrices() []SweepMatrix
}

// Axis is one dimension of a sweep's grid: a flag taking a comma list of
// integers.
type Axis struct {
	// Name is the flag and the key in sweep.json ("tables").
	Name string
	// Prefix heads the axis's value in a cell's name ("t" of t4-c16).
	Prefix string
	// Usage is the flag's help; Default its values when not given.
	Usage   string
	Default []int
	// Min is the smallest value allowed; Max, when above Min, the largest.
	Min, Max int
	// Parse, when set, reads one value of the flag as given (10KB): the
	// flag then takes strings, not integers.
	Parse func(string) (int, error)
	// ByPreset, when set, is the axis's values without the flag for each
	// preset, in place of Default.
	ByPreset func(preset string) []int
}

// Point is a cell of a sweep: each axis's value, by axis name.
type Point map[string]int

// CellName is the name of the cell at p over axes, e.g. t4-c16.
func CellName(axes []Axis, p Point) string {
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = a.Prefix + strconv.Itoa(p[a.Name])
	}
	return strings.Join(parts, "-")
}

// CheckAxis refuses an axis's values the sweep cannot run: none, one
// below the axis's minimum, or one listed twice.
func (a Axis) CheckAxis(values []int) error {
	if len(values) == 0 {
		return fmt.Errorf("--%s is empty: give a comma list, e.g. --%s 1,2", a.Name, a.Name)
	}
	seen := map[int]bool{}
	for _, v := range values {
		if a.Max > a.Min && (v < a.Min || v > a.Max) {
			return fmt.Errorf("--%s values must be between %d and %d, got %d", a.Name, a.Min, a.Max, v)
		}
		if v < a.Min {
			return fmt.Errorf("--%s values must be at least %d, got %d", a.Name, a.Min, v)
		}
		if seen[v] {
			return fmt.Errorf("--%s lists %d twice", a.Name, v)
		}
		seen[v] = true
	}
	return nil
}

// Values are the axis's values: given (flag values as given, each read
// by Parse, else an integer), else the preset's, else Default.
func (a Axis) Values(given []string, isGiven bool, preset string) ([]int, error) {
	if !isGiven {
		if a.ByPreset != nil {
			return a.ByPreset(preset), nil
		}
		return a.Default, nil
	}
	out := make([]int, 0, len(given))
	for _, g := range given {
		var v int
		var err error
		if a.Parse != nil {
			v, err = a.Parse(g)
		} else if v, err = strconv.Atoi(strings.TrimSpace(g)); err != nil {
			err = fmt.Errorf("--%s %q: want an integer", a.Name, g)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// CellConfigurer makes the configuration of one cell's run from the
// settings every run shares (c) and the cell's axis values (at). A nil
// Configured and nil error: the workload does not run that cell (the
// hot-row sweep's cells with fewer clients than tables), and the matrices
// show it skipped. Errors are the user's input.
type CellConfigurer func(c Common, at Point) (*Configured, error)

// SweepMatrix is one matrix of a sweep's report: per variant, a table of
// a figure of each cell's run, one axis down and another across (each
// further axis's value a table of its own).
type SweepMatrix struct {
	// Title heads the table ("updates/s").
	Title string
	// Figure is the catalogued figure shown (internal/figure's key), of
	// the step's main operation.
	Figure string
	// Rows and Columns name the axes down and across.
	Rows, Columns string
	// Step is the step of a cell's run the figure comes from.
	Step func(at Point) string
	// Note explains the matrix under it.
	Note string
}

// SweeperOf is the workload's Sweeper, or an error saying it cannot be
// swept and which workloads can.
func SweeperOf(name string) (Sweeper, error) {
	d, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if d.Sweeper == nil {
		var can []string
		for _, n := range Names() {
			if x, _ := Lookup(n); x.Sweeper != nil {
				can = append(can, n)
			}
		}
		return nil, fmt.Errorf("workload %s cannot be swept (it offers no sweep axes): sweep one of %s, or run it with `rumbench run %s`", name, strings.Join(can, ", "), name)
	}
	return d.Sweeper, nil
}

// SweepHelp is the help of `rumbench sweep NAME` of d (its Sweeper's
// axes named): the one-line summary, the text and an example.
func (d *Definition) SweepHelp() (short, long, example string) {
	var axes []string
	for _, a := range d.Sweeper.SweepAxes() {
		axes = append(axes, "--"+a.Name)
	}
	grid := strings.Join(axes, " × ")
	short = fmt.Sprintf("Run %s over variants × %s, one run per cell, and print its matrices", d.Name, grid)
	long = fmt.Sprintf(`Run the %s workload once per cell of a grid: every variant (--engine, --vary)
× %s, each cell a full run into <out>/<cell>/<variant>/. One progress line
per run with the sweep's ETA; a rerun with the same flags skips the finished
runs. At the end, and with `+"`rumbench sweep collect <out>`"+`, it prints the
workload's matrices per variant.`, d.Name, grid)
	return short, long, fmt.Sprintf("  rumbench sweep %s --engine pebble,sqlite --out sweep-%s", d.Name, d.Name)
}

// SweepRunFlags is a Sweeper's SweepFlags made of the workload's run flags
// (flags: its Definition.Flags): it declares into fs every run flag but
// those the axes set (runFlag: the run flag of each axis, by axis name),
// and configures a cell as `rumbench run NAME --FLAG V` of its values
// would, so a cell's run is the run's configuration, checks included.
// Cells are configured one at a time.
func SweepRunFlags(fs *pflag.FlagSet, flags func(*pflag.FlagSet) Configurer, runFlag map[string]string) CellConfigurer {
	own := pflag.NewFlagSet("run", pflag.ContinueOnError)
	configure := flags(own)
	set := map[string]bool{}
	for _, f := range runFlag {
		set[f] = true
	}
	own.VisitAll(func(f *pflag.Flag) {
		if !set[f.Name] && fs.Lookup(f.Name) == nil {
			fs.AddFlag(f)
		}
	})
	return func(c Common, at Point) (*Configured, error) {
		for axis, name := range runFlag {
			f := own.Lookup(name)
			v := strconv.Itoa(at[axis])
			var err error
			if sv, ok := f.Value.(pflag.SliceValue); ok {
				err = sv.Replace([]string{v})
			} else {
				err = f.Value.Set(v)
			}
			if err != nil {
				return nil, fmt.Errorf("--%s %s: %w", axis, v, err)
			}
		}
		changed := c.Changed
		c.Changed = func(name string) bool { return set[name] || changed(name) }
		return configure(c)
	}
}
