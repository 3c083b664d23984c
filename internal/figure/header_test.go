package figure

import (
	"testing"

	"rumbench/internal/measure"
	"rumbench/internal/units"
)

func TestHeadersOfAnOperationsFigures(t *testing.T) {
	insert := measure.OpSpec{Name: "insert", Short: "i", RateLabel: "IPS", Unit: measure.UnitRows}
	update := measure.OpSpec{Name: "update", Short: "u", Unit: measure.UnitOps}
	for _, c := range []struct {
		key  string
		op   measure.OpSpec
		pct  float64
		want string
	}{
		{RateAvg, insert, 0, "IPS.av(rows/s)"},
		{RatePct, insert, 0, "IPS.99(rows/s)"},
		{RatePct, insert, 99.9, "IPS.99.9(rows/s)"},
		{WriteRateAvg, update, 95, "update/s.av(u/s)"},
		{CPUPerOp, insert, 0, "CPU/i(µs)"},
		{ClientSysOp, update, 0, "cli.sys/u"},
		{WKBPerWrite, insert, 0, "wKB/i"},
		{ReadsPerOp, insert, 0, "r/i"},
		{DiskGB, insert, 0, "disk(GB)"},
		{P99Ms, measure.OpSpec{}, 0, "p99(ms)"},
		{"write_amp", insert, 0, "write_amp"},
	} {
		if got := Header(c.key, c.op, c.pct); got != c.want {
			t.Errorf("Header(%s, %s, %v) = %q, want %q", c.key, c.op.Name, c.pct, got, c.want)
		}
	}
}

func TestEveryHeadingAndNameIsOfACataloguedFigure(t *testing.T) {
	for _, m := range []map[string]string{heads, names} {
		for k := range m {
			if _, ok := Lookup(k); !ok {
				t.Errorf("%s is headed or named but not catalogued", k)
			}
		}
	}
	for k := range fixed {
		if _, ok := Lookup(k); !ok {
			t.Errorf("%s has a fixed format but is not catalogued", k)
		}
	}
	if got := Must(CPUPerOp).Name(); got != "CPU/op" {
		t.Errorf("CPU/op named %q", got)
	}
}

func TestFixedFormats(t *testing.T) {
	if got := Must(RateAvg).Fixed(1234.5678); got != "1235" {
		t.Errorf("rate %q", got)
	}
	if got := Must(P99Ms).Fixed(1.2345); got != "1.23" {
		t.Errorf("p99 %q", got)
	}
	// Without a fixed format: the figure's own.
	if got, want := Must(DiskGB).Fixed(1.23456), units.Num(1.23456); got != want {
		t.Errorf("disk %q, want %q", got, want)
	}
}

func TestBetterSideAndDirection(t *testing.T) {
	if got := Must(RateAvg).Better.Side("above 1", "below 1"); got != "above 1" {
		t.Errorf("rate: %q", got)
	}
	if got := Direction(CPUPerOp, WKBPerOp, RKBPerOp, LiveGB).Side("above 1", "below 1"); got != "below 1" {
		t.Errorf("costs: %q", got)
	}
	if got := Direction(RateAvg, CPUPerOp); got != Neither {
		t.Errorf("a rate and a cost agree: %v", got)
	}
}
