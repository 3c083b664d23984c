package results

import "testing"

func fp(v float64) *float64 { return &v }

// Write amplification on known inputs: KB written × 1024 over the logical
// bytes inserted, to four significant digits; the device's bytes when
// measured, else the processes'; null with the reason otherwise.
func TestWriteAmpArithmetic(t *testing.T) {
	const unwritten = "no bytes written were measured"
	for _, c := range []struct {
		name        string
		dev, proc   *float64
		details     map[string]any
		want        float64 // -1: null
		source, why string
	}{
		{"device", fp(1000), fp(5000), map[string]any{DetailLogicalBytesInserted: int64(512000)}, 2, "device", ""},
		{"four digits", fp(1234.5), nil, map[string]any{DetailLogicalBytesInserted: 1e6}, 1.264, "device", ""},
		{"process without a device", nil, fp(300), map[string]any{DetailLogicalBytesInserted: 100000}, 3.072, "process", ""},
		{"nothing measured", nil, nil, map[string]any{DetailLogicalBytesInserted: int64(1)}, -1, "", unwritten},
		{"nothing inserted", fp(10), nil, map[string]any{DetailLogicalBytesInserted: int64(0)}, -1, "", "no logical bytes inserted in this step"},
		{"not reported", fp(10), nil, map[string]any{}, -1, "", "the workload did not report logical bytes inserted"},
	} {
		m := &Metrics{DevWKB: c.dev, ProcWKB: c.proc, WriteAmp: fp(99), WriteAmpSource: "stale", NullReasons: map[string]string{"write_amp": "stale"}}
		m.SetLogicalBytes(c.details)
		m.SetWriteAmp(unwritten)
		switch {
		case c.want < 0 && (m.WriteAmp != nil || m.WriteAmpSource != "" || m.NullReasons["write_amp"] != c.why):
			t.Errorf("%s: write_amp %v (%q), reason %q; want null because %q", c.name, f(m.WriteAmp), m.WriteAmpSource, m.NullReasons["write_amp"], c.why)
		case c.want >= 0 && (m.WriteAmp == nil || *m.WriteAmp != c.want || m.WriteAmpSource != c.source || m.NullReasons["write_amp"] != ""):
			t.Errorf("%s: write_amp %v (%q), reason %q; want %g (%s)", c.name, f(m.WriteAmp), m.WriteAmpSource, m.NullReasons["write_amp"], c.want, c.source)
		}
	}
}

// Space amplification on known inputs: the engine's live size over the
// logical live bytes, to four significant digits, source "live"; null with
// the reason otherwise.
func TestSpaceAmpArithmetic(t *testing.T) {
	for _, c := range []struct {
		live    int64
		details map[string]any
		want    float64 // -1: null
		why     string
	}{
		{1000, map[string]any{DetailLogicalLiveBytes: int64(500)}, 2, ""},
		{9174063, map[string]any{DetailLogicalLiveBytes: 12600000.0}, 0.7281, ""},
		{516775936, map[string]any{DetailLogicalLiveBytes: 12600000}, 41.01, ""},
		{0, map[string]any{DetailLogicalLiveBytes: int64(500)}, 0, ""},
		{-1, map[string]any{DetailLogicalLiveBytes: int64(500)}, -1, "the engine did not report its live size"},
		{1000, map[string]any{DetailLogicalLiveBytes: int64(0)}, -1, "no live rows"},
		{1000, map[string]any{}, -1, "the workload did not report logical live bytes"},
	} {
		m := &Metrics{SpaceAmp: fp(99), SpaceAmpSource: "stale"}
		m.SetLogicalBytes(c.details)
		m.SetSpaceAmp(c.live)
		switch {
		case c.want < 0 && (m.SpaceAmp != nil || m.SpaceAmpSource != "" || m.NullReasons["space_amp"] != c.why):
			t.Errorf("live %d, %v: space_amp %v (%q), reason %q; want null because %q", c.live, c.details, f(m.SpaceAmp), m.SpaceAmpSource, m.NullReasons["space_amp"], c.why)
		case c.want >= 0 && (m.SpaceAmp == nil || *m.SpaceAmp != c.want || m.SpaceAmpSource != SpaceAmpLive):
			t.Errorf("live %d, %v: space_amp %v (%q), want %g (live)", c.live, c.details, f(m.SpaceAmp), m.SpaceAmpSource, c.want)
		}
	}
}

// The logical sizes are taken from the details, whatever their numeric
// type, and cleared when the details lack them.
func TestSetLogicalBytes(t *testing.T) {
	m := &Metrics{}
	m.SetLogicalBytes(map[string]any{DetailLogicalBytesInserted: 7.0, DetailLogicalLiveBytes: uint64(9)})
	if m.LogicalBytesInserted == nil || *m.LogicalBytesInserted != 7 || m.LogicalLiveBytes == nil || *m.LogicalLiveBytes != 9 {
		t.Fatalf("logical bytes %v %v, want 7 9", m.LogicalBytesInserted, m.LogicalLiveBytes)
	}
	m.SetLogicalBytes(nil)
	if m.LogicalBytesInserted != nil || m.LogicalLiveBytes != nil {
		t.Fatalf("logical bytes %v %v after details without them, want nil", m.LogicalBytesInserted, m.LogicalLiveBytes)
	}
}
