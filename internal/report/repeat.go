package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"rumbench/internal/results"

	"golang.org/x/perf/benchmath"
)

// Statistics over repetitions (--repeat) are benchstat's: benchmath's
// AssumeNothing, because run-to-run figures on a shared machine are skewed
// and multi-modal, not normal. The centre is the median, its interval is the
// distribution-free one from order statistics, and two sets of runs are
// compared with the Mann–Whitney U test.
const (
	// Confidence is the level of the interval around a median.
	Confidence = 0.95
	// Alpha is the significance level of comparisons.
	Alpha = 0.05
)

// Stat summarises one figure over a run's repetitions.
type Stat struct {
	// N is the number of repetitions that measured the figure.
	N int `json:"n"`
	// Values are the figure per repetition, in the order they ran.
	Values []float64 `json:"values"`
	Median float64   `json:"median"`
	// Lo and Hi bound the 95% confidence interval of the median; null
	// when there are too few repetitions for one (Note says how many).
	Lo *float64 `json:"ci_lo"`
	Hi *float64 `json:"ci_hi"`
	// Min and Max are the spread.
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	Note string  `json:"note,omitempty"`
}

var thresholds = &benchmath.Thresholds{CompareAlpha: Alpha}

// NewStat summarises values (available figures only, in run order); nil
// when there are none.
func NewStat(values []float64) *Stat {
	if len(values) == 0 {
		return nil
	}
	st := &Stat{N: len(values), Values: append([]float64(nil), values...)}
	s := benchmath.NewSample(append([]float64(nil), values...), thresholds)
	sum := benchmath.AssumeNothing.Summary(s, Confidence)
	st.Median, st.Min, st.Max = sum.Center, s.Values[0], s.Values[len(s.Values)-1]
	if !math.IsInf(sum.Lo, 0) && !math.IsInf(sum.Hi, 0) {
		st.Lo, st.Hi = &sum.Lo, &sum.Hi
	}
	for _, w := range sum.Warnings {
		st.Note = w.Error()
	}
	return st
}

// CIText is the interval as ± percent of the median (benchstat's form), or
// ±∞ when there are too few repetitions for one.
func (st *Stat) CIText() string {
	if st.Lo == nil {
		return "±∞"
	}
	if st.Median == 0 {
		if *st.Lo == 0 && *st.Hi == 0 {
			return "±0%"
		}
		return "±?"
	}
	v := math.Max(*st.Hi/st.Median-1, 1-*st.Lo/st.Median)
	return fmt.Sprintf("±%.0f%%", 100*math.Abs(v))
}

// SpreadText is (max−min)/median in percent.
func (st *Stat) SpreadText() string {
	if st.Median == 0 {
		return naText
	}
	return fmt.Sprintf("%.0f%%", 100*(st.Max-st.Min)/math.Abs(st.Median))
}

// Comparison is one figure of a run compared with the base's over their
// repetitions.
type Comparison struct {
	// Ratio is the ratio of the medians (run / base).
	Ratio *float64 `json:"ratio"`
	// P is the Mann–Whitney U test's p-value; null when the test could
	// never reach significance with these repetitions (Note says so).
	P           *float64 `json:"p_value"`
	Significant bool     `json:"significant"`
	N           int      `json:"n"`
	NBase       int      `json:"n_base"`
	Note        string   `json:"note,omitempty"`
}

// MinPossibleP is the smallest two-sided p-value the exact U test can give
// for samples of n1 and n2: both orderings that separate them completely,
// 2 / C(n1+n2, n1).
func MinPossibleP(n1, n2 int) float64 {
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// Compare tests cur against base (both over repetitions).
func Compare(base, cur *Stat) *Comparison {
	if base == nil || cur == nil {
		return nil
	}
	c := &Comparison{N: cur.N, NBase: base.N}
	if base.Median != 0 {
		r := cur.Median / base.Median
		c.Ratio = &r
	}
	if MinPossibleP(cur.N, base.N) > Alpha {
		c.Note = fmt.Sprintf("too few repetitions (%d vs %d) for the U test to ever reach p<%.2f: run at least 4 of each", cur.N, base.N, Alpha)
		return c
	}
	cmp := benchmath.AssumeNothing.Compare(
		benchmath.NewSample(append([]float64(nil), base.Values...), thresholds),
		benchmath.NewSample(append([]float64(nil), cur.Values...), thresholds))
	p := cmp.P
	c.P = &p
	c.Significant = p <= cmp.Alpha
	for _, w := range cmp.Warnings {
		c.Note = w.Error()
	}
	return c
}

// Mark is what a ratio cell adds: "~" for no significant difference, "?"
// when there were too few repetitions to tell, "" when significant.
func (c *Comparison) Mark() string {
	switch {
	case c.P == nil:
		return "?"
	case !c.Significant:
		return "~"
	}
	return ""
}

// repStats replaces the row's values by their medians over the run's
// repetitions that completed the step, and points the row at the
// repetition whose headline rate is the median (its intervals, stalls and
// latency are what the step's single-run views show).
func (row *Row) repStats(step string, kind Kind) {
	vals := map[string][]float64{}
	var rates []float64
	for _, b := range row.Run.Reps {
		rr := buildRow(&Run{Num: row.Run.Num, Label: row.Run.Label, Bundle: b}, step)
		if rr.Status != StatusOK {
			continue
		}
		row.Reps = append(row.Reps, b)
		for _, k := range valueKeys {
			if v := k.get(rr, kind, b.Steps[step]); v.OK {
				vals[k.Key] = append(vals[k.Key], v.V)
			}
		}
		rates = append(rates, rr.valueOr("rate_avg", kind, b.Steps[step]))
	}
	if len(row.Reps) == 0 {
		// No repetition completed the step: the first one's partial
		// figures, as for a single run.
		return
	}
	row.Stats = map[string]*Stat{}
	for _, k := range valueKeys {
		st := NewStat(vals[k.Key])
		if st == nil {
			row.Values[k.Key] = Value{}
			continue
		}
		row.Stats[k.Key] = st
		row.Values[k.Key] = some(st.Median)
	}
	// The median repetition by headline rate (the lower middle one for
	// an even count).
	order := make([]int, len(rates))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return rates[order[i]] < rates[order[j]] })
	med := row.Reps[order[(len(order)-1)/2]]
	if med != row.B {
		m := buildRow(&Run{Num: row.Run.Num, Label: row.Run.Label, Bundle: med}, step)
		row.B, row.Stalls, row.IPSTarget, row.TargetMet, row.Error = med, m.Stalls, m.IPSTarget, m.TargetMet, m.Error
		row.Status = m.Status
	}
}

func (row *Row) valueOr(key string, kind Kind, s *results.Step) float64 {
	for _, k := range valueKeys {
		if k.Key == key {
			if v := k.get(row, kind, s); v.OK {
				return v.V
			}
		}
	}
	return math.NaN()
}

// Repeated reports whether any run of the report has repetitions.
func (r *Report) Repeated() bool {
	for _, run := range r.Runs {
		if len(run.Reps) > 0 {
			return true
		}
	}
	return false
}

// CompareMarkdown writes a two-run report (OLD as the base, NEW) as the
// step tables and their ratios, the form `report --compare` prints.
func CompareMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s → %s\n\n", runName(r.Runs[0]), runName(r.Runs[1]))
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "%s\n", n)
	}
	for _, sr := range r.Steps {
		tables := r.StepTables(sr)
		for i, t := range tables {
			if i > 1 {
				break // the step's table and its ratios; not the device rates
			}
			writeMDTable(&b, t, "###")
		}
	}
	for _, c := range r.Caveats {
		fmt.Fprintf(&b, "%s\n\n", c)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CompareJSON writes the reports of `report --compare` as one document:
// each report's rows carry, per figure, the ratio of medians, the p-value
// and whether the difference is significant (vs_base_test).
func CompareJSON(w io.Writer, oldDir, newDir string, reps []*Report) error {
	doc := struct {
		Format      string            `json:"format"`
		Old         string            `json:"old"`
		New         string            `json:"new"`
		Alpha       float64           `json:"alpha"`
		Comparisons []json.RawMessage `json:"comparisons"`
	}{Format: "rumbench-compare/1", Old: oldDir, New: newDir, Alpha: Alpha}
	for _, r := range reps {
		var b strings.Builder
		if err := r.JSON(&b); err != nil {
			return err
		}
		doc.Comparisons = append(doc.Comparisons, json.RawMessage(b.String()))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// Bounds are what an error bar shows: the 95% interval of the median; ok
// is false with too few repetitions for one, where the tables say ±∞ and a
// chart draws no bar (a min–max bar there would read as an interval).
func (st *Stat) Bounds() (lo, hi float64, ok bool) {
	if st.Lo != nil {
		return *st.Lo, *st.Hi, true
	}
	return 0, 0, false
}
