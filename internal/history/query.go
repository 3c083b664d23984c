package history

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Filter selects runs; empty fields select all.
type Filter struct {
	Label, Engine, Step, Workload, HostClass string
	// Since keeps runs started at or after it.
	Since time.Time
}

// Run is one recorded run (one engine's bundle).
type Run struct {
	Key                              string
	StartedAt                        time.Time
	Workload, Sizes, Label           string
	Engine, EngineVersion            string
	EngineSettings, MeasuredSettings string // JSON objects
	Config                           string // JSON
	ToolVersion, ToolCommit          string
	Hostname, HostClass, Dir, Kind   string
	Complete                         bool
	Steps                            int
}

const runCols = `r.run_key, r.started_at, r.workload, r.sizes, r.label, r.engine, r.engine_version,
	r.engine_settings, r.measured_settings, r.config, r.tool_version, r.tool_commit,
	r.hostname, r.host_class, r.dir, r.kind, r.complete`

type scanner interface{ Scan(...any) error }

func scanRun(sc scanner, extra ...any) (*Run, error) {
	r := &Run{}
	var started string
	var complete int
	dst := append([]any{&r.Key, &started, &r.Workload, &r.Sizes, &r.Label, &r.Engine, &r.EngineVersion,
		&r.EngineSettings, &r.MeasuredSettings, &r.Config, &r.ToolVersion, &r.ToolCommit,
		&r.Hostname, &r.HostClass, &r.Dir, &r.Kind, &complete}, extra...)
	if err := sc.Scan(dst...); err != nil {
		return nil, err
	}
	r.StartedAt, r.Complete = parseTime(started), complete == 1
	return r, nil
}

// where is the WHERE clause of f over runs r (and, for Step, its steps).
func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, v any) {
		conds = append(conds, cond)
		args = append(args, v)
	}
	if f.Label != "" {
		add("r.label = ?", f.Label)
	}
	if f.Engine != "" {
		add("r.engine = ?", f.Engine)
	}
	if f.Workload != "" {
		add("r.workload = ?", f.Workload)
	}
	if f.HostClass != "" {
		add("r.host_class = ?", f.HostClass)
	}
	if !f.Since.IsZero() {
		add("r.started_at >= ?", fmtTime(f.Since))
	}
	if f.Step != "" {
		add("EXISTS (SELECT 1 FROM steps x WHERE x.run_key = r.run_key AND x.step = ?)", f.Step)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// Runs lists the runs f selects, oldest first.
func (s *Store) Runs(ctx context.Context, f Filter) ([]*Run, error) {
	w, args := f.where()
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+runCols+`,
		(SELECT count(*) FROM steps c WHERE c.run_key = r.run_key) FROM runs r`+w+` ORDER BY r.started_at, r.run_key`), args...)
	if err != nil {
		return nil, fmt.Errorf("history %s: list runs: %w", s.where, err)
	}
	defer rows.Close()
	var out []*Run
	for rows.Next() {
		var n int
		r, err := scanRun(rows, &n)
		if err != nil {
			return nil, fmt.Errorf("history %s: list runs: %w", s.where, err)
		}
		r.Steps = n
		out = append(out, r)
	}
	return out, rows.Err()
}

// SeriesKey is what the runs of one series share: the same work (workload,
// sizes, step) by the same variant (label) on the same class of machine.
// Builds, versions and settings are recorded on each point, not part of
// the key, so that a change point can name what changed around it.
type SeriesKey struct {
	Workload, Sizes, Step, Label, HostClass string
}

func (k SeriesKey) String() string {
	sizes := strings.NewReplacer(`"`, "", "{", "", "}", "").Replace(k.Sizes)
	return fmt.Sprintf("%s %s [%s] step %s on %s", k.Label, k.Workload, sizes, k.Step, k.HostClass)
}

// Point is one run's figures of a series' step.
type Point struct {
	Run     *Run
	Figures map[string]float64
}

// Series is a series' points, oldest first.
type Series struct {
	Key    SeriesKey
	Points []*Point
}

// Series gathers the completed steps of the runs f selects into series.
func (s *Store) Series(ctx context.Context, f Filter) ([]*Series, error) {
	w, args := f.where()
	if f.Step != "" {
		if w == "" {
			w = " WHERE "
		} else {
			w += " AND "
		}
		w += "st.step = ?"
		args = append(args, f.Step)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+runCols+`, st.step, st.seq, fg.figure, fg.value
		FROM runs r
		JOIN steps st ON st.run_key = r.run_key AND st.complete = 1
		JOIN figures fg ON fg.run_key = st.run_key AND fg.step = st.step`+w+`
		ORDER BY r.started_at, r.run_key, st.seq`), args...)
	if err != nil {
		return nil, fmt.Errorf("history %s: read series: %w", s.where, err)
	}
	defer rows.Close()
	byKey := map[SeriesKey]*Series{}
	firstSeq := map[SeriesKey]int{}
	var order []SeriesKey
	runs := map[string]*Run{}
	for rows.Next() {
		var step, figure string
		var seq int
		var v float64
		r, err := scanRun(rows, &step, &seq, &figure, &v)
		if err != nil {
			return nil, fmt.Errorf("history %s: read series: %w", s.where, err)
		}
		if known := runs[r.Key]; known != nil {
			r = known
		}
		runs[r.Key] = r
		k := SeriesKey{r.Workload, r.Sizes, step, r.Label, r.HostClass}
		ser := byKey[k]
		if ser == nil {
			ser = &Series{Key: k}
			byKey[k], firstSeq[k] = ser, seq
			order = append(order, k)
		}
		if n := len(ser.Points); n == 0 || ser.Points[n-1].Run != r {
			ser.Points = append(ser.Points, &Point{Run: r, Figures: map[string]float64{}})
		}
		ser.Points[len(ser.Points)-1].Figures[figure] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history %s: read series: %w", s.where, err)
	}
	// Series of one variant together, steps in the order they ran.
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.Workload != b.Workload {
			return a.Workload < b.Workload
		}
		if a.Label != b.Label {
			return a.Label < b.Label
		}
		if a.HostClass != b.HostClass {
			return a.HostClass < b.HostClass
		}
		if a.Sizes != b.Sizes {
			return a.Sizes < b.Sizes
		}
		return firstSeq[a] < firstSeq[b]
	})
	out := make([]*Series, len(order))
	for i, k := range order {
		out[i] = byKey[k]
	}
	return out, nil
}

// RunByPrefix is the run whose key starts with prefix (as `history list`
// prints keys: their first 12 characters); an error names no run or
// several.
func (s *Store) RunByPrefix(ctx context.Context, prefix string) (*Run, error) {
	if len(prefix) < 6 {
		return nil, fmt.Errorf("run %q: give at least 6 characters of a run's key (see `rumbench history list`)", prefix)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+runCols+` FROM runs r WHERE r.run_key LIKE ? ORDER BY r.started_at`), prefix+"%")
	if err != nil {
		return nil, fmt.Errorf("history %s: look up run %s: %w", s.where, prefix, err)
	}
	defer rows.Close()
	var out []*Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("history %s: look up run %s: %w", s.where, prefix, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history %s: look up run %s: %w", s.where, prefix, err)
	}
	switch len(out) {
	case 0:
		return nil, fmt.Errorf("no recorded run's key starts with %q (see `rumbench history list`)", prefix)
	case 1:
		return out[0], nil
	}
	return nil, fmt.Errorf("%d recorded runs' keys start with %q: give more of the key", len(out), prefix)
}
