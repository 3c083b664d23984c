// Package profile records where a step's CPU went: the client's Go CPU
// profile and the measured processes' stacks sampled by perf on the
// cpu-clock software event, both written in pprof's format so that
// `go tool pprof` opens them (docs/metrics.md "Profiles").
package profile

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// Keep says whether a sample of process pid (comm its command name) is one
// of the measured processes'.
type Keep func(pid int, comm string) bool

// FromPerfScript converts the text of `perf script -F comm,pid,tid,period,ip,sym,dso`
// over a recording with call graphs into a pprof profile of the samples
// keep accepts: per sample its count and its period (ns of CPU), its stack
// from leaf to root by function (a frame perf could not name is named by
// its object, "[dso]", so unnamed frames of one object add up), and its
// command and pid as labels.
func FromPerfScript(r io.Reader, keep Keep) (*profile.Profile, error) {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
	}
	b := newBuilder(p)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var cur *sampleHead
	kept := false
	var stack []*profile.Location
	flush := func() {
		if cur != nil && kept {
			p.Sample = append(p.Sample, &profile.Sample{
				Location: stack,
				Value:    []int64{1, cur.period},
				Label:    map[string][]string{"comm": {cur.comm}},
				NumLabel: map[string][]int64{"pid": {int64(cur.pid)}},
			})
		}
		cur, stack = nil, nil
	}
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		switch {
		case strings.TrimSpace(text) == "":
			flush()
		case text[0] != ' ' && text[0] != '\t':
			flush()
			h, err := parseHead(text)
			if err != nil {
				return nil, fmt.Errorf("perf script line %d: %w", line, err)
			}
			cur, kept = &h, keep(h.pid, h.comm)
		case cur != nil && kept:
			sym, dso, err := parseFrame(text)
			if err != nil {
				return nil, fmt.Errorf("perf script line %d: %w", line, err)
			}
			stack = append(stack, b.location(sym, dso))
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read perf script: %w", err)
	}
	var total int64
	for _, s := range p.Sample {
		total += s.Value[1]
	}
	if n := int64(len(p.Sample)); n > 0 {
		p.Period = total / n
	}
	return p, p.CheckValid()
}

// sampleHead is a sample's first line: "comm pid/tid period".
type sampleHead struct {
	comm   string
	pid    int
	period int64
}

func parseHead(text string) (sampleHead, error) {
	f := strings.Fields(text)
	if len(f) < 3 {
		return sampleHead{}, fmt.Errorf("want \"comm pid/tid period\", got %q", text)
	}
	period, err := strconv.ParseInt(f[len(f)-1], 10, 64)
	if err != nil {
		return sampleHead{}, fmt.Errorf("period in %q: %w", text, err)
	}
	ids := f[len(f)-2]
	if i := strings.IndexByte(ids, '/'); i >= 0 {
		ids = ids[:i]
	}
	pid, err := strconv.Atoi(ids)
	if err != nil {
		return sampleHead{}, fmt.Errorf("pid in %q: %w", text, err)
	}
	// The command name may hold spaces: it is everything before the ids.
	comm := strings.TrimSpace(text[:strings.LastIndex(text, f[len(f)-2])])
	return sampleHead{comm: comm, pid: pid, period: period}, nil
}

// parseFrame reads "addr symbol (dso)"; the symbol may hold spaces (C++).
func parseFrame(text string) (sym, dso string, err error) {
	t := strings.TrimSpace(text)
	sp := strings.IndexByte(t, ' ')
	open := strings.LastIndex(t, " (")
	if sp < 0 || open < sp || !strings.HasSuffix(t, ")") {
		return "", "", fmt.Errorf("want \"addr symbol (object)\", got %q", t)
	}
	sym = strings.TrimSpace(t[sp+1 : open])
	dso = t[open+2 : len(t)-1]
	if sym == "" || sym == "[unknown]" {
		sym = "[" + dso + "]"
	}
	return sym, dso, nil
}

// builder makes one location, function and mapping per name.
type builder struct {
	p    *profile.Profile
	locs map[[2]string]*profile.Location
	fns  map[[2]string]*profile.Function
	maps map[string]*profile.Mapping
}

func newBuilder(p *profile.Profile) *builder {
	return &builder{p: p, locs: map[[2]string]*profile.Location{}, fns: map[[2]string]*profile.Function{}, maps: map[string]*profile.Mapping{}}
}

func (b *builder) location(sym, dso string) *profile.Location {
	k := [2]string{sym, dso}
	if l := b.locs[k]; l != nil {
		return l
	}
	m := b.maps[dso]
	if m == nil {
		m = &profile.Mapping{ID: uint64(len(b.p.Mapping) + 1), File: dso}
		b.maps[dso] = m
		b.p.Mapping = append(b.p.Mapping, m)
	}
	fn := b.fns[k]
	if fn == nil {
		fn = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: sym, SystemName: sym, Filename: dso}
		b.fns[k] = fn
		b.p.Function = append(b.p.Function, fn)
	}
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Mapping: m, Line: []profile.Line{{Function: fn}}}
	b.locs[k] = l
	b.p.Location = append(b.p.Location, l)
	return l
}

func parsePprof(b []byte) (*profile.Profile, error) { return profile.ParseData(b) }
