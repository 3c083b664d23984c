package audit

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)

// at is t0 plus s seconds.
func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// stamped turns "SECONDS TEXT" lines (seconds after t0) into a stamped log.
func stamped(t *testing.T, text string) []Line {
	t.Helper()
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimPrefix(text, "\n"), "\n") {
		if l == "" {
			continue
		}
		sec, rest, _ := strings.Cut(l, " ")
		var s float64
		if _, err := fmt.Sscan(sec, &s); err != nil {
			t.Fatalf("bad line %q", l)
		}
		fmt.Fprintf(&b, "%d %s\n", at(s).UnixNano(), rest)
	}
	lines, err := ReadStamped(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

func TestStampRoundTrip(t *testing.T) {
	var out bytes.Buffer
	n := 0
	now := func() time.Time { n++; return at(float64(n)) }
	if err := Stamp(strings.NewReader("a b\n\nc\n"), &out, now); err != nil {
		t.Fatal(err)
	}
	lines, err := ReadStamped(&out)
	if err != nil {
		t.Fatal(err)
	}
	want := []Line{{at(1), "a b"}, {at(2), ""}, {at(3), "c"}}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d", len(lines), len(want))
	}
	for i := range want {
		if !lines[i].T.Equal(want[i].T) || lines[i].Text != want[i].Text {
			t.Errorf("line %d = %v %q, want %v %q", i, lines[i].T, lines[i].Text, want[i].T, want[i].Text)
		}
	}
	if _, err := ReadStamped(strings.NewReader("no stamp here\n")); err == nil {
		t.Error("a line without a stamp was accepted")
	}
}

// sysstat 12.6.1's iostat -dkx -t -y 1 vda, as printed on Debian 12.
const iostatLog = `
0 #stamp-start env S_TIME_FORMAT=ISO iostat -dkx -t -y 1 vda
0.001 Linux 6.18.44-fc-v769 (vm) 	2026-11-27 	_x86_64_	(2 CPU)
0.002 
1.000 
1.001 2026-11-27T00:24:10+0000
1.002 Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util
1.003 vda             27.00    140.00     0.00   0.00    0.30     5.19   10.00   4000.00     0.00   0.00    0.00     0.00    2.00      8.00     0.00   0.00    0.00     4.00    3.00    0.00    0.01   1.20
1.004 sda              5.00     50.00     0.00   0.00    0.30     5.19   10.00   4000.00     0.00   0.00    0.00     0.00    2.00      8.00     0.00   0.00    0.00     4.00    3.00    0.00    0.01   1.20
1.005 
2.000 
2.001 2026-11-27T00:24:11+0000
2.002 Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util
2.503 vda             24.00    132.00     0.00   0.00    0.29     5.50    0.00      0.00     0.00   0.00    0.00     0.00    0.00      0.00     0.00   0.00    0.00     0.00    0.00    0.00    0.00   0.40
`

func TestParseIostat(t *testing.T) {
	got, err := ParseIostat(stamped(t, iostatLog), "vda")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d samples, want 2", len(got))
	}
	// The first report covers the time since the start mark (1.003 s),
	// the second the 1.5 s since the first.
	s := got[0]
	if !s.From.Equal(at(0)) || !s.To.Equal(at(1.003)) {
		t.Errorf("first sample spans %v..%v", s.From, s.To)
	}
	want := map[string]float64{"reads": 27 * 1.003, "rkb": 140 * 1.003, "writes": 10 * 1.003, "wkb": 4000 * 1.003,
		"discards": 2 * 1.003, "discard_kb": 8 * 1.003, "flushes": 3 * 1.003}
	for k, v := range want {
		if !near(s.V[k], v) {
			t.Errorf("first sample %s = %v, want %v", k, s.V[k], v)
		}
	}
	if len(s.V) != len(want) {
		t.Errorf("keys %v, want %v", s.V, want)
	}
	if s := got[1]; !s.From.Equal(at(1.003)) || !s.To.Equal(at(2.503)) || !near(s.V["reads"], 24*1.5) {
		t.Errorf("second sample %v..%v reads %v, want 36 over 1.5 s", s.From, s.To, s.V["reads"])
	}
	// An older sysstat without f/s: no flushes key, the rest as before.
	old := strings.NewReplacer("     f/s f_await", "", "    3.00    0.00    0.01", "    0.01", "    0.00    0.00    0.00   0.40", "    0.00   0.40").Replace(iostatLog)
	got, err = ParseIostat(stamped(t, old), "vda")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got[0].V["flushes"]; ok || !near(got[0].V["wkb"], 4000*1.003) {
		t.Errorf("without f/s: %v", got[0].V)
	}
}

// sysstat 12.6.1's pidstat -u -d -h -U postgres 1 under LC_ALL=C.
const pidstatLog = `
0 #stamp-start pidstat -u -d -h -U postgres 1
0.001 Linux 6.18.44-fc-v769 (vm) 	11/27/26 	_x86_64_	(2 CPU)
1.000 
1.001 # Time          USER       PID    %usr %system  %guest   %wait    %CPU   CPU   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command
1.002 00:47:43     postgres      2207    1.00    0.00    0.00    0.00    1.00     1      0.00  90832.00      0.00       0  postgres
1.003 00:47:43     postgres     23724   40.00   10.00    0.00    0.00   50.00     0      4.00    448.00     12.00       0  postgres
2.000 
2.001 # Time          USER       PID    %usr %system  %guest   %wait    %CPU   CPU   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command
3.001 
3.001 # Time          USER       PID    %usr %system  %guest   %wait    %CPU   CPU   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command
3.002 12:47:45 AM  postgres     23724  100.00   50.00    0.00    0.00  150.00     0      0.00   1000.00      0.00       0  postgres: 15/main: x
3.003 #stamp-end exit=0
`

func TestParsePidstat(t *testing.T) {
	got, err := ParsePidstat(stamped(t, pidstatLog), map[int]bool{2207: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d samples, want 3 (one per report, an empty one included)", len(got))
	}
	// Report 1: over 1.001 s, pid 2207 left out.
	s := got[0]
	dt := 1.001
	want := map[string]float64{"usr_us": 0.40e6 * dt, "sys_us": 0.10e6 * dt, "cpu_us": 0.50e6 * dt, "rkb": 4 * dt, "wkb": 448 * dt, "ccwkb": 12 * dt}
	for k, v := range want {
		if !near(s.V[k], v) {
			t.Errorf("report 1 %s = %v, want %v", k, s.V[k], v)
		}
	}
	if len(got[1].V) != 0 || !got[1].To.Equal(at(2.001)) {
		t.Errorf("report 2 (no task active) = %v to %v", got[1].V, got[1].To)
	}
	// Report 3: a 12-hour time and a command with spaces.
	if s := got[2]; !near(s.V["cpu_us"], 1.5e6*1.0) || !near(s.V["wkb"], 1000) {
		t.Errorf("report 3 = %v", s.V)
	}
	// Without skipping, the root's 90,832 kB/s count.
	got, _ = ParsePidstat(stamped(t, pidstatLog), nil)
	if !near(got[0].V["wkb"], (90832+448)*1.001) {
		t.Errorf("report 1 wkb without skip = %v", got[0].V["wkb"])
	}
}

func TestDeltas(t *testing.T) {
	got := Deltas([]Point{
		{at(2), map[string]float64{"a": 30, "b": 5}},
		{at(0), map[string]float64{"a": 10}},
		{at(1), map[string]float64{"a": 15, "b": 1}},
	})
	if len(got) != 2 {
		t.Fatalf("%d samples", len(got))
	}
	if !got[0].From.Equal(at(0)) || got[0].V["a"] != 5 || len(got[0].V) != 1 {
		t.Errorf("first = %+v", got[0])
	}
	if got[1].V["a"] != 15 || got[1].V["b"] != 4 {
		t.Errorf("second = %+v", got[1])
	}
}

// seconds makes one-second samples (k, k+1] from a to b, each counting
// rate(t) integrated over it (at 1 ms steps).
func seconds(a, b int, rate func(t float64) float64) []Sample {
	var out []Sample
	for k := a; k < b; k++ {
		v := 0.0
		for i := 0; i < 1000; i++ {
			v += rate(float64(k)+(float64(i)+0.5)/1000) / 1000
		}
		out = append(out, Sample{From: at(float64(k)), To: at(float64(k + 1)), V: map[string]float64{"x": v}})
	}
	return out
}

func TestAttributeWithPauses(t *testing.T) {
	// Two steps of 10 s at fractional offsets, a 3.3 s pause between,
	// 100/s in the steps, 10/s of background everywhere else.
	windows := []Window{{"a", at(10.3), at(20.3)}, {"b", at(23.6), at(33.6)}}
	rate := func(t float64) float64 {
		for _, w := range windows {
			if t > w.From.Sub(t0).Seconds() && t <= w.To.Sub(t0).Seconds() {
				return 100
			}
		}
		return 10
	}
	got := Attribute(seconds(5, 40, rate), windows)
	for i, w := range windows {
		a := got[i]
		// The edge samples hold 10/s of pause: measured in the pause's own
		// samples and taken out, so the window gets its 1000 exactly.
		if !near(a.V["x"], 1000) {
			t.Errorf("%s = %v, want 1000", w.Name, a.V["x"])
		}
		if a.Inside != 9 || a.Edge != 2 || !near(a.Covered, 1) {
			t.Errorf("%s: %d inside, %d at the edges, covered %v; want 9, 2, 1", w.Name, a.Inside, a.Edge, a.Covered)
		}
		// Bounds: the 9 inside samples (900), and all of the two edges.
		if !near(a.Lo["x"], 900) {
			t.Errorf("%s lo = %v, want 900", w.Name, a.Lo["x"])
		}
	}
	// a's edges: (10,11] holds 0.3 s of pause (3) and 70; (20,21] 30 and 7.
	if !near(got[0].Hi["x"], 900+73+37) {
		t.Errorf("a hi = %v, want 1010", got[0].Hi["x"])
	}
	mean, peak, n := PauseRates(seconds(5, 40, rate), windows)
	if n != 2 || !near(mean["x"], 10) || !near(peak["x"], 10) {
		t.Errorf("pause rates: %d samples, mean %v, peak %v; want 2 (21..23), 10, 10", n, mean["x"], peak["x"])
	}
}

func TestAttributeWithoutPauses(t *testing.T) {
	// Adjacent steps (no pause): the shared sample is split by overlap.
	windows := []Window{{"a", at(10), at(20.25)}, {"b", at(20.25), at(30)}}
	rate := func(t float64) float64 {
		if t <= 20.25 {
			return 100
		}
		return 200
	}
	got := Attribute(seconds(10, 30, rate), windows)
	// (20,21] holds 25 + 150 = 175: a gets a quarter (43.75), b the rest.
	if want := 1000 + 43.75; !near(got[0].V["x"], want) {
		t.Errorf("a = %v, want %v", got[0].V["x"], want)
	}
	if want := 9*200 + 131.25; !near(got[1].V["x"], want) {
		t.Errorf("b = %v, want %v", got[1].V["x"], want)
	}
	// A gap shorter than a sample has no sample of its own: its part of
	// the edge sample goes by time (pro rata).
	windows = []Window{{"a", at(10), at(20.5)}, {"b", at(20.75), at(30)}}
	got = Attribute(seconds(10, 30, func(float64) float64 { return 100 }), windows)
	// (20,21]: 100 = 25 of gap (pro rata), 75 split 50:25 by overlap.
	if !near(got[0].V["x"], 1050) || !near(got[1].V["x"], 925) {
		t.Errorf("a = %v, b = %v; want 1050, 925", got[0].V["x"], got[1].V["x"])
	}
	// Samples that do not cover a window say so.
	got = Attribute(seconds(15, 30, func(float64) float64 { return 1 }), windows)
	if !near(got[0].Covered, 5.5/10.5) {
		t.Errorf("covered %v, want %v", got[0].Covered, 5.5/10.5)
	}
}

// writeProc makes a fake /proc: pid → (ppid, utime, stime, cutime, cstime, write_bytes).
func writeProc(t *testing.T, procs map[int][6]int64) string {
	t.Helper()
	dir := t.TempDir()
	for pid, p := range procs {
		d := filepath.Join(dir, fmt.Sprint(pid))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		// A command with spaces and a parenthesis, as postgres sets them.
		stat := fmt.Sprintf("%d (postgres: x) y) S %d 1 1 0 -1 4194560 100 0 0 0 %d %d %d %d 20 0 1 0 100 1000 10\n", pid, p[0], p[1], p[2], p[3], p[4])
		io := fmt.Sprintf("rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: %d\nwrite_bytes: %d\ncancelled_write_bytes: 7\n", 1024, p[5])
		os.WriteFile(filepath.Join(d, "stat"), []byte(stat), 0o644)
		os.WriteFile(filepath.Join(d, "io"), []byte(io), 0o644)
	}
	os.MkdirAll(filepath.Join(dir, "self"), 0o755)
	return dir
}

func TestReadTree(t *testing.T) {
	proc := writeProc(t, map[int][6]int64{
		100: {1, 10, 20, 300, 400, 1 << 20},   // the root: its reaped children in cutime/cstime
		101: {100, 1, 2, 0, 0, 2048},          // a backend
		102: {101, 5, 5, 7, 8, 4096},          // its child
		200: {1, 1000, 1000, 0, 0, 1 << 30},   // not in the tree
		300: {200, 1000, 1000, 0, 0, 1 << 30}, // nor this
	})
	tr, err := ReadTree(proc, 100)
	if err != nil {
		t.Fatal(err)
	}
	if tr.UserTicks != 10+300+1+5+7 || tr.SysTicks != 20+400+2+5+8 || tr.Procs != 3 {
		t.Errorf("tree = %+v", tr)
	}
	if tr.WriteBytes != 1<<20+2048+4096 || tr.ReadBytes != 3*1024 || tr.CancelledWriteBytes != 21 || tr.IOErr != "" {
		t.Errorf("tree IO = %+v", tr)
	}
	if _, err := ReadTree(proc, 999); err == nil {
		t.Error("a missing root was not an error")
	}
	// Two readings a second apart become one sample, in µs and KB.
	var b bytes.Buffer
	bw := bufio.NewWriter(&b)
	WriteLine(bw, at(0), StartMark+" proctree")
	WriteLine(bw, at(1), FormatTree(TreeReading{UserTicks: 100, SysTicks: 50, WriteBytes: 4096}))
	WriteLine(bw, at(2), FormatTree(TreeReading{UserTicks: 150, SysTicks: 60, WriteBytes: 4096 + 10240}))
	lines, err := ReadStamped(&b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseTree(lines)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].V["usr_us"] != 500e3 || got[0].V["sys_us"] != 100e3 || got[0].V["cpu_us"] != 600e3 || got[0].V["wkb"] != 10 {
		t.Errorf("tree samples = %+v", got)
	}
}

// writeBundle writes a bundle of one engine with the given step files.
func writeBundle(t *testing.T, kind string, steps map[string]string, order ...string) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "steps"), 0o755)
	run := fmt.Sprintf(`{"engine":{"name":"e","kind":%q},"steps":[%s]}`, kind, `"`+strings.Join(order, `","`)+`"`)
	os.WriteFile(filepath.Join(dir, "run.json"), []byte(run), 0o644)
	for name, body := range steps {
		os.WriteFile(filepath.Join(dir, "steps", name+".json"), []byte(body), 0o644)
	}
	return dir
}

func TestCompare(t *testing.T) {
	// A 20 s insert step of 1000 rows from t0+10: rumbench wrote 2000 KB
	// to the device (2 KB/i), read 5 KB, used 10 s of CPU; the bundle
	// has no flush field (an older build) and proc_rkb null.
	step := func(start string, secs float64, devWKB float64, procWKB ...float64) string {
		pw := 20000.0
		if len(procWKB) > 0 {
			pw = procWKB[0]
		}
		return fmt.Sprintf(`{"step":"s","main_op":"insert","complete":true,"started_at":%q,"seconds":%g,
			"ops":{"insert":{"unit":"rows","role":"write","count":20,"rows":1000}},
			"metrics":{"noise_span_s":%g,"dev_wkb":%g,"dev_rkb":5,"dev_reads":1,"dev_writes":100,"dev_discard_kb":0,
			"cpu_us":10000000,"proc_wkb":%g,"proc_rkb":null,
			"per_op":{"insert":{"cpu_us":10000,"wkb":%g,"rkb":0.005,"reads":0.001}}}}`, start, secs, secs, devWKB, pw, devWKB/1000)
	}
	b := writeBundle(t, "embedded", map[string]string{
		"s":     step(at(10).Format(time.RFC3339Nano), 20, 2000),
		"short": strings.Replace(step(at(40).Format(time.RFC3339Nano), 5, 9000), `"step":"s"`, `"step":"short"`, 1),
		"net":   strings.Replace(step(at(60).Format(time.RFC3339Nano), 20, 2000, 15000), `"step":"s"`, `"step":"net"`, 1),
	}, "s", "short", "net", "never")
	bundle, err := ReadBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(bundle.Steps) != 3 {
		t.Fatalf("%d steps read, want 3 (the one never run has no file)", len(bundle.Steps))
	}
	iostat := seconds(5, 90, func(float64) float64 { return 0 })
	for i := range iostat {
		s := &iostat[i]
		s.V = map[string]float64{"wkb": 100, "rkb": 0, "reads": 0, "writes": 5, "discard_kb": 0, "flushes": 1}
	}
	client := seconds(5, 90, func(float64) float64 { return 0 })
	for i := range client {
		client[i].V = map[string]float64{"cpu_us": 0.62e6, "wkb": 1000, "ccwkb": 250, "rkb": 0}
	}
	res := Compare(bundle, map[string][]Sample{SrcIostat: iostat, SrcClient: client}, Options{Tolerance: 0.10, MinSeconds: 15, MinCovered: 0.95})
	rows := map[string]Row{}
	for _, r := range res.Rows {
		rows[r.Step+" "+r.Figure] = r
	}
	check := func(key, rumbench, outside, ratio, verdict string) {
		t.Helper()
		r, ok := rows[key]
		if !ok {
			t.Errorf("no row %q", key)
			return
		}
		if r.Rumbench != rumbench || r.Outside != outside || r.Ratio != ratio || r.Verdict != verdict {
			t.Errorf("%s: %q | %q | %q | %q; want %q | %q | %q | %q", key, r.Rumbench, r.Outside, r.Ratio, r.Verdict, rumbench, outside, ratio, verdict)
		}
	}
	// 20 samples of 100 KB in the window: 2000 KB, 2 KB per row.
	check("s dev wKB/i", "2", "2", "1.000", "ok")
	// 5 KB read against nothing: under the floor.
	check("s dev rKB/i", "0.005", "0", "inf", "ok (under floor)")
	check("s dev fl/i", "n/a (not in this build)", "0.02", "", "n/a")
	check("s proc rKB/i", "null", "0", "", "n/a")
	// 10 s of CPU against 12.4 s: more than 10% and 0.2 s apart.
	check("s CPU/i", "10000", "12400", "0.806", "FAIL (edges allow 12400..12400)")
	check("s CPU usr/i", "n/a (not in this build)", "n/a (pidstat %usr of rumbench not reported)", "", "n/a")
	// Process bytes: write_bytes (20000 KB) matches; in the step whose
	// proc_wkb left out the 5000 KB cancelled, write_bytes less them does.
	check("s proc wKB/i", "20", "20", "1.000", "ok")
	check("net proc wKB/i", "15", "15 (less cancelled)", "1.000", "ok")
	// The short step: shown, not judged.
	check("short dev wKB/i", "9", "0.5", "18.000", "short (<15s)")
	if !res.Failed {
		t.Error("a failed row did not fail the engine")
	}
	var out bytes.Buffer
	res.Print(&out, Options{Tolerance: 0.10, MinSeconds: 15})
	for _, want := range []string{"### e (embedded)", "| s     | dev wKB/i", "floor 4096", "s: window 00:00:10.000 + 20.00 s"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 2340: "2340", 2344.4: "2344", 12345.6: "12346", 1.5: "1.5", 0.08183: "0.08183", 0.000431: "0.000431", 2.18e-5: "2.18e-05", 100: "100", 30.63: "30.63"} {
		if got := num(v); got != want {
			t.Errorf("num(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestLabel(t *testing.T) {
	f := Figure{Name: "proc wKB", Qual: "pidstat"}
	for per, want := range map[string]string{"/i": "proc wKB/i (pidstat)", " (step)": "proc wKB (step, pidstat)", "": "proc wKB (pidstat)"} {
		if got := f.label(per); got != want {
			t.Errorf("label(%q) = %q, want %q", per, got, want)
		}
	}
	if got := (Figure{Name: "dev wKB"}).label("/q"); got != "dev wKB/q" {
		t.Errorf("label = %q", got)
	}
}
