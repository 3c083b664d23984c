package audit

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// Source names of the outside samples.
const (
	SrcIostat = "iostat" // iostat -dkx of the data's device
	SrcClient = "client" // pidstat -u -d of the rumbench process
	SrcServer = "server" // pidstat -u -d of the server's processes, its root left out
	SrcTree   = "tree"   // the server root's cumulative counters, reaped children and live ones
)

// Figure is one row of the audit: a rumbench figure and the outside
// count it is checked against.
type Figure struct {
	Name string // without its denominator: "dev wKB" becomes "dev wKB/i"
	// Qual names the tool when two rows check one figure: "pidstat".
	Qual string
	// PerOp is the key in metrics.per_op.<main>, "" when rumbench has no
	// per-operation field for it (then the total is divided).
	PerOp string
	// Total is the step total in metrics.
	Total string
	// Source and Key say which samples, and which of their counts.
	Source, Key string
	// Tool says how the independent figure was counted.
	Tool string
	// Less, when set, is a key whose count may have been subtracted from
	// rumbench's figure: process bytes written are the kernel's
	// write_bytes, or write_bytes less cancelled_write_bytes (pages
	// dirtied and then truncated before writeback, issue 44). The row is
	// compared with whichever of the two is closer to rumbench's, and
	// says so when it is the second (only when the cancelled bytes are
	// more than the floor: else the two are the same figure).
	Less string
	// Info marks a row shown for reference, never judged.
	Info bool
	// Floor is the least difference of the step totals, in the total's
	// unit, that can fail the row: under it, a ratio beyond the tolerance
	// is noise of the alignment (see Floors).
	Floor float64
}

// Floors on a step's totals: a row fails only when the two totals differ
// by more than the tolerance AND by more than its floor, so a figure of a
// few KB, requests or ticks (rKB/i of 0.001 in a load that reads nothing)
// does not fail on the background of the machine or on how a tool rounds.
const (
	FloorKB    = 4096  // KB: 4 MiB of device or process IO
	FloorReqs  = 100   // device requests: reads, writes, flushes
	FloorCPUUs = 200e3 // µs: 0.2 s of CPU (20 ticks of 10 ms)
)

// Figures is the audit's rows for an engine of kind ("embedded" or
// "server").
func Figures(kind string) []Figure {
	dev := []Figure{
		{Name: "dev wKB", PerOp: "wkb", Total: "dev_wkb", Source: SrcIostat, Key: "wkb", Tool: "iostat wkB/s", Floor: FloorKB},
		{Name: "dev rKB", PerOp: "rkb", Total: "dev_rkb", Source: SrcIostat, Key: "rkb", Tool: "iostat rkB/s", Floor: FloorKB},
		{Name: "dev r", PerOp: "reads", Total: "dev_reads", Source: SrcIostat, Key: "reads", Tool: "iostat r/s", Floor: FloorReqs},
		{Name: "dev w", Total: "dev_writes", Source: SrcIostat, Key: "writes", Tool: "iostat w/s", Floor: FloorReqs},
		{Name: "dev dKB", Total: "dev_discard_kb", Source: SrcIostat, Key: "discard_kb", Tool: "iostat dkB/s", Floor: FloorKB},
		{Name: "dev fl", PerOp: "flushes", Total: "dev_flushes", Source: SrcIostat, Key: "flushes", Tool: "iostat f/s", Floor: FloorReqs},
	}
	if kind == "server" {
		return append(dev,
			Figure{Name: "CPU", PerOp: "cpu_us", Total: "cpu_us", Source: SrcTree, Key: "cpu_us", Tool: "server root's utime+stime+cutime+cstime + live descendants'", Floor: FloorCPUUs},
			Figure{Name: "CPU usr", PerOp: "cpu_user_us", Total: "cpu_user_us", Source: SrcTree, Key: "usr_us", Tool: "the same, utime+cutime", Floor: FloorCPUUs},
			Figure{Name: "CPU sys", PerOp: "cpu_sys_us", Total: "cpu_sys_us", Source: SrcTree, Key: "sys_us", Tool: "the same, stime+cstime", Floor: FloorCPUUs},
			Figure{Name: "client CPU", PerOp: "client_cpu_us", Total: "client_cpu_us", Source: SrcClient, Key: "cpu_us", Tool: "pidstat %CPU of rumbench", Floor: FloorCPUUs},
			Figure{Name: "client CPU usr", PerOp: "client_cpu_user_us", Total: "client_cpu_user_us", Source: SrcClient, Key: "usr_us", Tool: "pidstat %usr of rumbench", Floor: FloorCPUUs},
			Figure{Name: "client CPU sys", PerOp: "client_cpu_sys_us", Total: "client_cpu_sys_us", Source: SrcClient, Key: "sys_us", Tool: "pidstat %system of rumbench", Floor: FloorCPUUs},
			Figure{Name: "proc wKB", Total: "proc_wkb", Source: SrcTree, Key: "wkb", Less: "ccwkb", Tool: "write_bytes (or less cancelled_write_bytes, whichever is closer) of the server root's /proc/PID/io (its reaped children's included) + live descendants'", Floor: FloorKB},
			Figure{Name: "proc rKB", Total: "proc_rkb", Source: SrcTree, Key: "rkb", Tool: "read_bytes, the same way", Floor: FloorKB},
			Figure{Name: "proc wKB", Qual: "pidstat", Total: "proc_wkb", Source: SrcServer, Key: "wkb", Info: true, Tool: "pidstat kB_wr/s of the server's processes but its root; for reference: pidstat never sees a process born and reaped between two reports, and loses the last part of one reaped (its root's counters, which hold them, would count the rest twice)", Floor: FloorKB},
		)
	}
	return append(dev,
		Figure{Name: "CPU", PerOp: "cpu_us", Total: "cpu_us", Source: SrcClient, Key: "cpu_us", Tool: "pidstat %CPU of rumbench (engine inside)", Floor: FloorCPUUs},
		Figure{Name: "CPU usr", PerOp: "cpu_user_us", Total: "cpu_user_us", Source: SrcClient, Key: "usr_us", Tool: "pidstat %usr of rumbench", Floor: FloorCPUUs},
		Figure{Name: "CPU sys", PerOp: "cpu_sys_us", Total: "cpu_sys_us", Source: SrcClient, Key: "sys_us", Tool: "pidstat %system of rumbench", Floor: FloorCPUUs},
		Figure{Name: "proc wKB", Total: "proc_wkb", Source: SrcClient, Key: "wkb", Less: "ccwkb", Tool: "pidstat kB_wr/s (or less kB_ccwr/s, whichever is closer) of rumbench", Floor: FloorKB},
		Figure{Name: "proc rKB", Total: "proc_rkb", Source: SrcClient, Key: "rkb", Tool: "pidstat kB_rd/s of rumbench", Floor: FloorKB},
	)
}

// Options are the audit's thresholds.
type Options struct {
	// Tolerance is the largest relative difference that passes (0.10).
	Tolerance float64
	// MinSeconds: a step shorter than this is shown, not judged.
	MinSeconds float64
	// MinCovered: an outside tool that covered less of a window than
	// this (0.95) gives no figure for it.
	MinCovered float64
}

// Row is one line of the table.
type Row struct {
	Step, Figure      string
	Rumbench, Outside string
	Ratio, Verdict    string
	Failed            bool
	rTotal, iTotal    float64
	haveR, haveI      bool
}

// Result is one engine's audit.
type Result struct {
	Engine, Kind string
	Rows         []Row
	Floors       map[string]float64 // figure name → floor used
	Notes        []string
	// Pauses say what each source counted in the pauses between steps.
	Pauses []string
	Failed bool
}

// pauseNote says what a source counted per second in the pauses.
func pauseNote(source string, mean, peak map[string]float64, n int) string {
	keys := make([]string, 0, len(mean))
	for k := range mean {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %s (max %s)", k, num(mean[k]), num(peak[k])))
	}
	return fmt.Sprintf("%s, %d samples: %s", source, n, strings.Join(parts, ", "))
}

// Compare checks each step of the bundle against the samples of each
// source, attributed to the steps' windows.
func Compare(b *Bundle, sources map[string][]Sample, o Options) *Result {
	res := &Result{Engine: b.Engine, Kind: b.Kind, Floors: map[string]float64{}}
	windows := make([]Window, len(b.Steps))
	for i := range b.Steps {
		windows[i] = b.Steps[i].Window()
	}
	attributed := map[string][]Attributed{}
	names := make([]string, 0, len(sources))
	for name := range sources {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		attributed[name] = Attribute(sources[name], windows)
		if mean, peak, n := PauseRates(sources[name], windows); n > 0 {
			res.Pauses = append(res.Pauses, pauseNote(name, mean, peak, n))
		}
	}
	for i := range b.Steps {
		s := &b.Steps[i]
		var parts []string
		for _, name := range names {
			a := attributed[name][i]
			parts = append(parts, fmt.Sprintf("%s %d inside + %d at the edges, %.0f%% covered", name, a.Inside, a.Edge, 100*a.Covered))
		}
		w := windows[i]
		res.Notes = append(res.Notes, fmt.Sprintf("%s: window %s + %.2f s (clock %.2f s); %s", s.Name,
			w.From.UTC().Format("15:04:05.000"), w.To.Sub(w.From).Seconds(), s.Seconds, strings.Join(parts, "; ")))
	}
	for _, f := range Figures(b.Kind) {
		res.Floors[f.label("")] = f.Floor
	}
	for i := range b.Steps {
		s := &b.Steps[i]
		n := s.Denominator()
		for _, f := range Figures(b.Kind) {
			var a *Attributed
			if as, ok := attributed[f.Source]; ok {
				a = &as[i]
			}
			row := compareRow(s, n, f, a, res.Floors[f.label("")], o)
			if row.Failed {
				res.Failed = true
			}
			res.Rows = append(res.Rows, row)
		}
	}
	return res
}

// label is the figure's name with the denominator's suffix (per) and
// its tool when it has one: "dev wKB/i", "proc wKB/i (pidstat)", "proc
// wKB (step, pidstat)".
func (f Figure) label(per string) string {
	if f.Qual == "" {
		return f.Name + per
	}
	if strings.HasSuffix(per, ")") {
		return f.Name + strings.TrimSuffix(per, ")") + ", " + f.Qual + ")"
	}
	return f.Name + per + " (" + f.Qual + ")"
}

// per is the denominator's suffix in a figure's name.
func per(s *Step, n int64) string {
	if n <= 0 {
		return " (step)"
	}
	switch s.MainOp {
	case "insert":
		return "/i"
	case "query":
		return "/q"
	}
	return "/op"
}

func compareRow(s *Step, n int64, f Figure, a *Attributed, floor float64, o Options) Row {
	row := Row{Step: s.Name, Figure: f.label(per(s, n))}
	div := func(v float64) float64 {
		if n > 0 {
			return v / float64(n)
		}
		return v
	}
	// rumbench's figure: the per-operation field when the bundle has it,
	// else the total divided.
	total := s.Metric(f.Total)
	var shown Field
	if n > 0 && f.PerOp != "" {
		shown = s.PerOp(f.PerOp)
	}
	if shown.State != "ok" {
		shown = total
		shown.V = div(total.V)
	}
	switch shown.State {
	case "ok":
		row.Rumbench, row.haveR = num(shown.V), true
		row.rTotal = total.V
		if total.State != "ok" {
			row.rTotal = shown.V * float64(max(n, 1))
		}
	case "null":
		row.Rumbench = "null"
	default:
		row.Rumbench = "n/a (not in this build)"
	}
	// The outside figure.
	less := 0.0
	switch {
	case a == nil:
		row.Outside = "n/a (no " + f.Source + " samples)"
	case a.Covered < o.MinCovered:
		row.Outside = fmt.Sprintf("n/a (%s covered %.0f%%)", f.Source, 100*a.Covered)
	default:
		v, ok := a.V[f.Key]
		if !ok {
			row.Outside = "n/a (" + f.Tool + " not reported)"
			break
		}
		row.Outside, row.iTotal, row.haveI = num(div(v)), v, true
		if c, ok := a.V[f.Less]; ok && f.Less != "" && c > f.Floor && row.haveR && math.Abs(v-c-row.rTotal) < math.Abs(v-row.rTotal) {
			row.Outside, row.iTotal, less = num(div(v-c))+" (less cancelled)", v-c, c
		}
	}
	if !row.haveR || !row.haveI {
		row.Ratio, row.Verdict = "", "n/a"
		return row
	}
	r, i := shown.V, div(row.iTotal)
	diff := math.Abs(row.rTotal - row.iTotal)
	var rel float64
	switch {
	case i != 0:
		row.Ratio = fmt.Sprintf("%.3f", r/i)
		rel = math.Abs(r/i - 1)
	case r == 0:
		row.Ratio = "1.000"
	default:
		row.Ratio, rel = "inf", math.Inf(1)
	}
	lo, hi := a.Lo[f.Key], a.Hi[f.Key]
	if less != 0 {
		lo, hi = lo-a.Lo[f.Less], hi-a.Hi[f.Less]
		lo, hi = min(lo, hi), max(lo, hi)
	}
	// The bounds themselves are sums of rounded samples: a total on
	// a bound within the floor is on it.
	inBounds := row.rTotal >= lo-floor && row.rTotal <= hi+floor
	bounds := fmt.Sprintf(" (edges allow %s..%s)", num(div(lo)), num(div(hi)))
	switch {
	case f.Info:
		row.Verdict = "info"
	case !s.Complete:
		row.Verdict = "incomplete step"
	case s.Seconds < o.MinSeconds:
		row.Verdict = fmt.Sprintf("short (<%gs)", o.MinSeconds)
	case rel <= o.Tolerance:
		row.Verdict = "ok"
	case diff <= floor:
		row.Verdict = "ok (under floor)"
	case inBounds:
		row.Verdict = "ok" + bounds
	default:
		row.Verdict, row.Failed = "FAIL"+bounds, true
	}
	return row
}

// num formats a figure with 4 significant digits.
func num(v float64) string {
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	switch {
	case a >= 1e4:
		return fmt.Sprintf("%.0f", v)
	case a >= 1e-4:
		d := 3 - int(math.Floor(math.Log10(a)))
		if d <= 0 {
			return fmt.Sprintf("%.0f", v)
		}
		return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.*f", d, v), "0"), ".")
	}
	return fmt.Sprintf("%.3g", v)
}

// Print writes the engine's table, its floors and notes.
func (r *Result) Print(w io.Writer, o Options) {
	fmt.Fprintf(w, "\n### %s (%s)\n\n", r.Engine, r.Kind)
	rows := [][]string{{"step", "figure", "rumbench", "independent", "ratio", "verdict"}}
	for _, x := range r.Rows {
		rows = append(rows, []string{x.Step, x.Figure, x.Rumbench, x.Outside, x.Ratio, x.Verdict})
	}
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	line := func(cells []string) {
		fmt.Fprint(w, "|")
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i >= 2 && i <= 4 {
				fmt.Fprintf(w, " %s%s |", pad, c)
			} else {
				fmt.Fprintf(w, " %s%s |", c, pad)
			}
		}
		fmt.Fprintln(w)
	}
	line(rows[0])
	sep := make([]string, len(width))
	for i, n := range width {
		sep[i] = strings.Repeat("-", n)
		if i >= 2 && i <= 4 {
			sep[i] = strings.Repeat("-", n-1) + ":"
		}
	}
	line(sep)
	for _, row := range rows[1:] {
		line(row)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "independent figures:")
	for _, f := range Figures(r.Kind) {
		fmt.Fprintf(w, "  %-18s %s; floor %s\n", f.label(""), f.Tool, num(r.Floors[f.label("")]))
	}
	fmt.Fprintf(w, "a row fails when rumbench/independent is off 1 by more than %.0f%%, the step totals differ by more than the floor (KB, requests or µs), and rumbench's total lies outside what the samples at the window's edges allow (none of them .. all of them); steps shorter than %gs are shown, not judged\n", 100*o.Tolerance, o.MinSeconds)
	fmt.Fprintln(w, "windows (started_at + noise_span_s: the clock and the end-of-step flush) and how the samples fell:")
	for _, n := range r.Notes {
		fmt.Fprintln(w, "  "+n)
	}
	if len(r.Pauses) > 0 {
		fmt.Fprintln(w, "counted per second in the pauses between steps (other processes, the engine's background work; mean and largest sample):")
		for _, n := range r.Pauses {
			fmt.Fprintln(w, "  "+n)
		}
	}
}
