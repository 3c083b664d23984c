package results

import (
	"strings"
	"testing"
)

func f64(v float64) *float64 { return &v }

// Other processes' IO is recorded with its share of the device's traffic
// (the larger of reads and writes), and warned about above NoiseIOShare of
// the device's and NoiseIOMinKB.
func TestIONoiseShareAndWarning(t *testing.T) {
	for _, c := range []struct {
		name                   string
		devR, devW, othR, othW *float64
		share                  float64
		warn                   string
	}{
		{"quiet", f64(10_000), f64(100_000), f64(0), f64(500), 0.005, ""},
		{"writes", f64(10_000), f64(100_000), f64(0), f64(20_000), 0.2, "other processes wrote 19.5 MB (20% of the device's 97.7 MB)"},
		{"reads on an idle device", f64(0), f64(100_000), f64(2048), f64(0), 1, "other processes read 2.00 MB (none on the device)"},
		{"small share of little", f64(100), f64(100), f64(50), f64(0), 0.5, ""},
	} {
		m := &Metrics{DevRKB: c.devR, DevWKB: c.devW}
		m.SetIONoise(c.othR, c.othW)
		if m.OtherIOShare == nil || *m.OtherIOShare != c.share {
			t.Errorf("%s: other_io_share %v, want %g", c.name, m.OtherIOShare, c.share)
		}
		got := m.NoisyIO()
		if (c.warn == "") != (got == "") || !strings.Contains(got, c.warn) {
			t.Errorf("%s: warning %q, want %q", c.name, got, c.warn)
		}
	}
	m := &Metrics{DevWKB: f64(1)}
	m.SetIONoise(nil, nil)
	if m.OtherIOShare != nil || m.NoisyIO() != "" {
		t.Errorf("unknown other IO: share %v, warning %q; want none", m.OtherIOShare, m.NoisyIO())
	}
}
