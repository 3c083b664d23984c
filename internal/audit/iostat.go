package audit

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// iostatKeys maps `iostat -dkx` columns (sysstat 12) to sample keys: the
// rate times the sample's length is the count. f/s (flush requests
// completed) is there since sysstat 12.2 on kernels ≥ 5.5.
var iostatKeys = map[string]string{
	"r/s": "reads", "rkB/s": "rkb",
	"w/s": "writes", "wkB/s": "wkb",
	"d/s": "discards", "dkB/s": "discard_kb",
	"f/s": "flushes",
}

// ParseIostat reads a stamped log of `iostat -dkx -y [-t] 1 DEVICE` into
// one sample per report of device: each from the previous report's stamp
// (the first from the tool's start mark) to its own. -y is needed: without
// it the first report is the average since boot. Every rate column above
// becomes a count (rate × the sample's seconds by the stamps).
func ParseIostat(lines []Line, device string) ([]Sample, error) {
	var out []Sample
	var cols []string
	var prev time.Time
	for _, l := range lines {
		f := strings.Fields(l.Text)
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == StartMark:
			prev = l.T
		case f[0] == "Device" || f[0] == "Device:":
			cols = f
		case f[0] == device && cols != nil:
			if len(f) != len(cols) {
				return nil, fmt.Errorf("iostat: %d values under %d columns: %q", len(f), len(cols), l.Text)
			}
			if prev.IsZero() {
				return nil, fmt.Errorf("iostat: a report before the start mark")
			}
			dt := l.T.Sub(prev).Seconds()
			s := Sample{From: prev, To: l.T, V: map[string]float64{}}
			for i, c := range cols {
				key, ok := iostatKeys[c]
				if !ok {
					continue
				}
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					return nil, fmt.Errorf("iostat: column %s: %w", c, err)
				}
				s.V[key] = v * dt
			}
			out = append(out, s)
			prev = l.T
		}
	}
	return out, nil
}
