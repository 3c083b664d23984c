package sysmetrics

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"rumbench/internal/results"
)

// TestParseStatFaults: fields 10–13 of /proc/PID/stat are the page faults
// (minor, children's minor, major, children's major), read from after the
// command name, which may hold spaces and parentheses.
func TestParseStatFaults(t *testing.T) {
	line := "4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 1111 2222 33 44 500 60 7 8 20 0 3 0 9999 1000000 250 18446744073709551615\n"
	st, err := parseStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if st.minflt != 1111 || st.cminflt != 2222 || st.majflt != 33 || st.cmajflt != 44 {
		t.Errorf("faults %d %d %d %d, want 1111 2222 33 44", st.minflt, st.cminflt, st.majflt, st.cmajflt)
	}
	if st.utime != 500 || st.stime != 60 || st.cutime != 7 || st.cstime != 8 || st.start != 9999 || st.rss != 250 || st.state != 'S' {
		t.Errorf("other fields: %+v", st)
	}
}

// TestMinorFaultsCountTouchedPages: touching 4,000 fresh pages of this
// process raises its minor faults, as the kernel's own count in
// /proc/self/stat says, by at least that many.
func TestMinorFaultsCountTouchedPages(t *testing.T) {
	read := func() uint64 {
		b, err := os.ReadFile("/proc/self/stat")
		if err != nil {
			t.Skip(err)
		}
		st, err := parseStat(b)
		if err != nil {
			t.Fatal(err)
		}
		return st.minflt
	}
	const pages = 4000
	before := read()
	buf := make([]byte, pages*os.Getpagesize())
	for i := 0; i < len(buf); i += os.Getpagesize() {
		buf[i] = 1
	}
	want := uint64(pages / 2)
	if thp, _ := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); bytes.Contains(thp, []byte("[always]")) {
		want = pages / 512 // a huge page faults 512 pages in at once
	}
	if got := read() - before; got < want {
		t.Errorf("minor faults rose by %d after touching %d pages, want ≥ %d", got, pages, want)
	}
}

// TestHardwareCountersNullReason: where perf stat cannot count cycles
// (this VM: "<not supported>"), every hardware-counter figure of a step is
// null with the reason; the probe agrees with perf.
func TestHardwareCountersNullReason(t *testing.T) {
	out, err := exec.Command("perf", "stat", "-e", "cycles", "true").CombinedOutput()
	if err != nil {
		t.Skipf("perf stat: %v", err)
	}
	pmu := !bytes.Contains(out, []byte("<not supported>"))
	why := hwCountersWhy()
	if pmu == strings.HasPrefix(why, "the host has no hardware performance counters") {
		t.Fatalf("perf stat says PMU %v, the probe says %q", pmu, why)
	}
	if pmu {
		t.Skip("this host has a PMU")
	}
	s := &Sampler{rd: &reader{}, tr: newTracker()}
	m := s.metrics(&results.Step{})
	for _, k := range hwCounterFigures {
		if m.NullReasons[k] != why {
			t.Errorf("null_reasons[%s] = %q, want %q", k, m.NullReasons[k], why)
		}
	}
}
