package measure

import (
	"testing"
	"time"
)

func TestRateMetBy(t *testing.T) {
	// 100 intervals with rates 1..100: 99 of them are >= 2, so IPS.99 = 2.
	var r []float64
	for i := 100; i >= 1; i-- {
		r = append(r, float64(i))
	}
	if got := RateMetBy(r, 99); got != 2 {
		t.Fatalf("RateMetBy(1..100, 99) = %v, want 2", got)
	}
	if got := RateMetBy(r, 50); got != 51 {
		t.Fatalf("RateMetBy(1..100, 50) = %v, want 51", got)
	}
	// Ten intervals: 99% of 10 rounds up to all ten, so the minimum.
	if got := RateMetBy([]float64{5, 9, 3, 7, 8, 6, 4, 10, 11, 12}, 99); got != 3 {
		t.Fatalf("RateMetBy(10 values, 99) = %v, want 3", got)
	}
	if got := RateMetBy(nil, 99); got != 0 {
		t.Fatalf("RateMetBy(nil) = %v, want 0", got)
	}
	if got := RateMetBy([]float64{7}, 99); got != 7 {
		t.Fatalf("RateMetBy([7]) = %v, want 7", got)
	}
}

func TestMedian(t *testing.T) {
	if got := Median([]float64{3, 1, 2}); got != 2 {
		t.Fatalf("median = %v, want 2", got)
	}
	if got := Median([]float64{4, 1, 2, 3}); got != 2.5 {
		t.Fatalf("median = %v, want 2.5", got)
	}
}

func TestSummarizeKnownValues(t *testing.T) {
	h := NewHistogram()
	for v := int64(1); v <= 1000; v++ {
		h.RecordValue(v)
	}
	l := Summarize(h)
	if l.Count != 1000 {
		t.Fatalf("count = %d", l.Count)
	}
	// Three significant digits: exact for values below 2048.
	checks := map[string][2]int64{"p50": {l.P50, 500}, "p90": {l.P90, 900}, "p99": {l.P99, 990}, "p99.9": {l.P999, 999}, "max": {l.Max, 1000}}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %d, want %d", name, c[0], c[1])
		}
	}
	if l.Mean != 500.5 {
		t.Errorf("mean = %v, want 500.5", l.Mean)
	}
}

// testOps is an operation set for the clock's own tests.
var testOps = Ops{{Name: "insert", Unit: UnitRows, Role: RoleWrite}, {Name: "query", Unit: UnitOps, Role: RoleRead}}

const opInsert, opQuery = Op(0), Op(1)

func TestClockMergesWorkers(t *testing.T) {
	var seen []int64
	c := NewClock(50*time.Millisecond, testOps, func(iv *Interval) {
		if o := iv.Ops[opInsert]; o != nil {
			seen = append(seen, o.Rows)
		}
	})
	a, b := c.Recorder(), c.Recorder()
	c.Start()
	for i := 0; i < 10; i++ {
		a.Record(opInsert, 100, 2*time.Millisecond, false)
		b.Record(opInsert, 50, 4*time.Millisecond, false)
	}
	b.Record(opInsert, 50, time.Millisecond, true)
	c.Stop()
	tot := c.Total(opInsert)
	if tot.Ops != 21 || tot.Rows != 1500 || tot.Errors != 1 {
		t.Fatalf("totals ops=%d rows=%d errors=%d, want 21/1500/1", tot.Ops, tot.Rows, tot.Errors)
	}
	if tot.Hist.TotalCount() != 21 || tot.Hist.Max() < 3990 || tot.Hist.Max() > 4010 {
		t.Fatalf("histogram count=%d max=%d", tot.Hist.TotalCount(), tot.Hist.Max())
	}
	var sum int64
	for _, r := range seen {
		sum += r
	}
	if sum != 1500 {
		t.Fatalf("interval rows sum to %d, want 1500", sum)
	}
}

func TestRecordAllocatesNothing(t *testing.T) {
	c := NewClock(time.Hour, testOps)
	r := c.Recorder()
	r.Record(opInsert, 1, time.Millisecond, false)
	if n := testing.AllocsPerRun(1000, func() { r.Record(opInsert, 100, 3*time.Millisecond, false) }); n != 0 {
		t.Fatalf("Record allocates %v per call", n)
	}
}

// Rates count in each operation's unit: rows for inserts, successful
// operations for queries.
func TestClockRatesInUnits(t *testing.T) {
	c := NewClock(time.Hour, testOps)
	r := c.Recorder()
	c.Start()
	r.Record(opInsert, 100, time.Millisecond, false)
	r.Record(opQuery, 10, time.Millisecond, false)
	r.Record(opQuery, 10, time.Millisecond, false)
	r.Record(opQuery, 0, time.Millisecond, true)
	c.Stop()
	secs := c.RateSeconds()[0]
	if got, want := c.Rates(opInsert)[0], 100/secs; got != want {
		t.Errorf("insert rate %g, want %g rows/s", got, want)
	}
	if got, want := c.Rates(opQuery)[0], 2/secs; got != want {
		t.Errorf("query rate %g, want %g queries/s (errors excluded)", got, want)
	}
}

func TestOpsValidate(t *testing.T) {
	if err := testOps.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Ops{
		nil,
		{{Name: "Insert", Unit: UnitRows, Role: RoleWrite}},
		{{Name: "a", Unit: UnitRows, Role: RoleWrite}, {Name: "a", Unit: UnitRows, Role: RoleWrite}},
		{{Name: "a", Unit: "bytes", Role: RoleWrite}},
		{{Name: "a", Unit: UnitRows, Role: "both"}},
		{{Name: "a_response", Unit: UnitRows, Role: RoleNone, ResponseOf: "a"}},
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v validated", bad)
		}
	}
}
