package history

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"rumbench/internal/figure"
)

// HigherIsBetter reports whether a rise of a figure is an improvement,
// from the figure catalogue: costs, sizes and latencies are better lower, a
// rise of them is a regression; rates are better higher. A figure the
// catalogue does not know is taken as a rate.
func HigherIsBetter(key string) bool {
	f, ok := figure.Lookup(key)
	return !ok || f.Better != figure.Lower
}

// notChecked says whether a figure describes the work rather than how well
// it went (figure.Neither: rows per query): it has no better direction.
func notChecked(key string) bool {
	f, ok := figure.Lookup(key)
	return ok && f.Better == figure.Neither
}

// CheckFigures are the figures `history check` looks at by default: the
// headline rate, its percentile, the per-operation costs and the p99.
var CheckFigures = []string{"rate_avg", "rate_pct", "cpu_us_per_op", "wkb_per_op", "rkb_per_op", "p99_ms"}

// Finding is one change point of one figure of a series.
type Finding struct {
	Series *Series
	Figure string
	Change Change
	// Position is the 1-based number of the first run at the new level
	// among the series' runs that have the figure; Prev and At are the
	// runs either side of the change.
	Position  int
	Prev, At  *Point
	Runs      int
	Regressed bool
	// Latest is true when the change is the series' last for the figure:
	// its newest runs are at the new level.
	Latest bool
	// Differs lists what differs between Prev and At: rumbench's build,
	// the engine's version and settings, the run's config, the host.
	Differs []string
}

// Gate reports whether the finding fails `history check`: the newest runs
// of the series hold a regression.
func (f *Finding) Gate() bool { return f.Regressed && f.Latest }

// Direction is "regression" or "improvement".
func (f *Finding) Direction() string {
	if f.Regressed {
		return "regression"
	}
	return "improvement"
}

// Check finds the change points of figures (CheckFigures when empty) in
// every series.
func Check(ss []*Series, figures []string, o DetectOptions) []*Finding {
	if len(figures) == 0 {
		figures = CheckFigures
	}
	var out []*Finding
	for _, ser := range ss {
		for _, fig := range figures {
			if notChecked(fig) {
				continue
			}
			var xs []float64
			var pts []*Point
			for _, p := range ser.Points {
				if v, ok := p.Figures[fig]; ok {
					xs, pts = append(xs, v), append(pts, p)
				}
			}
			cs := Detect(xs, o)
			for i, c := range cs {
				f := &Finding{Series: ser, Figure: fig, Change: c, Position: c.Index + 1, Runs: len(xs),
					Prev: pts[c.Index-1], At: pts[c.Index], Latest: i == len(cs)-1}
				f.Regressed = (c.After < c.Before) == HigherIsBetter(fig)
				f.Differs = Differs(f.Prev.Run, f.At.Run)
				out = append(out, f)
			}
		}
	}
	return out
}

// configSkip are config keys that differ between runs without changing
// what was measured.
var configSkip = map[string]bool{"data_dir": true, "database": true, "dsn_given": true}

// Differs lists what differs between runs a and b, "what: a → b": the
// builds, versions, settings, config and host that a change point may be
// owed to.
func Differs(a, b *Run) []string {
	var out []string
	add := func(what, x, y string) {
		if x != y {
			out = append(out, fmt.Sprintf("%s: %s → %s", what, orNone(x), orNone(y)))
		}
	}
	add("rumbench version", a.ToolVersion, b.ToolVersion)
	add("rumbench commit", a.ToolCommit, b.ToolCommit)
	add("engine", a.Engine, b.Engine)
	add("engine version", a.EngineVersion, b.EngineVersion)
	diffJSON(&out, "engine setting ", a.EngineSettings, b.EngineSettings, nil)
	diffJSON(&out, "measured setting ", a.MeasuredSettings, b.MeasuredSettings, nil)
	diffJSON(&out, "config ", a.Config, b.Config, configSkip)
	add("host", a.Hostname, b.Hostname)
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// diffJSON adds the keys whose values differ between JSON objects x and y,
// flattened to dotted names.
func diffJSON(out *[]string, prefix, x, y string, skip map[string]bool) {
	fx, fy := map[string]string{}, map[string]string{}
	flattenJSON(x, fx)
	flattenJSON(y, fy)
	keys := map[string]bool{}
	for k := range fx {
		keys[k] = true
	}
	for k := range fy {
		keys[k] = true
	}
	var sorted []string
	for k := range keys {
		if !skip[strings.SplitN(k, ".", 2)[0]] {
			sorted = append(sorted, k)
		}
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		if fx[k] != fy[k] {
			*out = append(*out, fmt.Sprintf("%s%s: %s → %s", prefix, k, orNone(fx[k]), orNone(fy[k])))
		}
	}
}

func flattenJSON(text string, out map[string]string) {
	var v any
	if json.Unmarshal([]byte(text), &v) != nil {
		return
	}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok {
			for k, x := range m {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, x)
			}
			return
		}
		b, _ := json.Marshal(v)
		out[prefix] = strings.Trim(string(b), `"`)
	}
	walk("", v)
}
