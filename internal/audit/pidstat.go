package audit

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// pidstatKeys maps `pidstat -u -d -h` columns (sysstat 12) to sample
// keys; CPU percentages become µs, kB/s become KB, over the sample's
// seconds.
var pidstatKeys = map[string]struct {
	key   string
	scale float64
}{
	"%usr":      {"usr_us", 1e4}, // % of a second → µs
	"%system":   {"sys_us", 1e4},
	"%CPU":      {"cpu_us", 1e4},
	"kB_rd/s":   {"rkb", 1},
	"kB_wr/s":   {"wkb", 1},
	"kB_ccwr/s": {"ccwkb", 1},
}

// ParsePidstat reads a stamped log of `pidstat -u -d -h ... 1` (run with
// LC_ALL=C, so the time column is one field) into one sample per report:
// the report's header line ("# Time ...") is its stamp, and the sample
// sums the values of every task line of the report except the pids in
// skip. A report covers the time since the previous one (the first: since
// the start mark).
func ParsePidstat(lines []Line, skip map[int]bool) ([]Sample, error) {
	var out []Sample
	var cols []string
	var prev time.Time
	cur := -1
	for _, l := range lines {
		f := strings.Fields(l.Text)
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == StartMark:
			prev = l.T
		case f[0] == EndMark:
		case f[0] == "#":
			if prev.IsZero() {
				return nil, fmt.Errorf("pidstat: a report before the start mark")
			}
			cols = f[1:]
			out = append(out, Sample{From: prev, To: l.T, V: map[string]float64{}})
			cur = len(out) - 1
			prev = l.T
		case cur >= 0 && cols != nil:
			if len(f) > 1 && (f[1] == "AM" || f[1] == "PM") {
				f = append(f[:1], f[2:]...)
			}
			if len(f) < len(cols) {
				return nil, fmt.Errorf("pidstat: %d values under %d columns: %q", len(f), len(cols), l.Text)
			}
			s := out[cur]
			dt := s.To.Sub(s.From).Seconds()
			pid := -1
			vals := map[string]float64{}
			for i, c := range cols {
				if c == "PID" {
					p, err := strconv.Atoi(f[i])
					if err != nil {
						return nil, fmt.Errorf("pidstat: PID %q: %w", f[i], err)
					}
					pid = p
				}
				k, ok := pidstatKeys[c]
				if !ok {
					continue
				}
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					return nil, fmt.Errorf("pidstat: column %s: %w", c, err)
				}
				vals[k.key] = v * k.scale * dt
			}
			if skip[pid] {
				continue
			}
			for k, v := range vals {
				s.V[k] += v
			}
		}
	}
	return out, nil
}
