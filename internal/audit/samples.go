// Package audit checks rumbench's figures against tools rumbench did not
// write (docs/metrics.md, "The audit"; scripts/audit.sh): sysstat's iostat
// and pidstat, and the kernel's cumulative counters of a server's process
// tree. It reads their output (each line stamped with the time it was
// printed), attributes their samples to the windows of a bundle's steps
// and prints, per step, figure | rumbench | independent | ratio.
package audit

import (
	"math"
	"sort"
	"time"
)

// Sample is what an outside tool counted over (From, To]: counts, not
// rates (a rate is multiplied by the sample's length when it is parsed).
type Sample struct {
	From, To time.Time
	V        map[string]float64
}

// Window is one step's measured span: from its first sample to its last
// (the step's clock plus its end-of-step flush).
type Window struct {
	Name     string
	From, To time.Time
}

// Attributed is what the samples gave one window.
type Attributed struct {
	V map[string]float64
	// Covered is the part of the window that samples covered, 0..1:
	// below 1 a tool started late, stopped early or missed a sample.
	Covered float64
	// Inside counts the samples wholly inside the window; Edge those
	// that straddle its start or end.
	Inside, Edge int
	// Lo and Hi bound what the window can hold whatever the edge samples'
	// work was: Lo counts none of the edge samples, Hi all of them.
	Lo, Hi map[string]float64
}

// Attribute gives each sample's counts to the windows it overlaps. A
// sample inside a window is the window's. A sample that straddles a
// window's edge holds, besides the window's work, work done outside every
// window (a pause between steps, the time before the first or after the
// last) or in the next window:
//
//   - the part outside every window is estimated from the nearest sample
//     wholly in the same gap (its rate times the part's length: the
//     background of the pause, measured in the pause) and taken out; with
//     no such sample (no pause, or one shorter than a sample), the part
//     takes its share of the sample by time (pro rata);
//   - what is left is split between the windows the sample overlaps in
//     proportion to their overlaps.
//
// With a pause of two seconds or more between steps (--step-pause) no
// once-a-second sample overlaps two windows, and each pause has a sample
// of its own, so the error left is how much the background work at a
// step's edge differs from the pause's next to it. A sample overlapping
// no window is nobody's.
func Attribute(samples []Sample, windows []Window) []Attributed {
	out := make([]Attributed, len(windows))
	for i := range out {
		out[i].V, out[i].Lo, out[i].Hi = map[string]float64{}, map[string]float64{}, map[string]float64{}
	}
	covered := make([]time.Duration, len(windows))
	pure := pureByGap(samples, windows)
	for _, s := range samples {
		var total time.Duration
		overlaps := make([]time.Duration, len(windows))
		n := 0
		for i, w := range windows {
			o := overlap(s.From, s.To, w.From, w.To)
			overlaps[i] = o
			total += o
			covered[i] += o
			if o > 0 {
				n++
			}
		}
		if total <= 0 {
			continue
		}
		dt := s.To.Sub(s.From).Seconds()
		rest := map[string]float64{}
		for k, v := range s.V {
			rest[k] = v
		}
		for _, g := range outside(s, windows) {
			for k, v := range s.V {
				rate := v / dt
				if p := nearest(pure[g.gap], g.from, g.to); p != nil {
					rate = p.V[k] / p.To.Sub(p.From).Seconds()
				}
				rest[k] -= rate * g.to.Sub(g.from).Seconds()
			}
		}
		for i, o := range overlaps {
			if o <= 0 {
				continue
			}
			inside := o == s.To.Sub(s.From)
			if inside {
				out[i].Inside++
			} else {
				out[i].Edge++
			}
			for k, v := range s.V {
				out[i].Hi[k] += v
				if inside {
					out[i].Lo[k] += v
				}
			}
			share := float64(o) / float64(total)
			for k, v := range rest {
				out[i].V[k] += math.Max(0, v) * share
			}
		}
	}
	for i, w := range windows {
		if d := w.To.Sub(w.From); d > 0 {
			out[i].Covered = float64(covered[i]) / float64(d)
		}
	}
	return out
}

// gapOf is the gap a time outside every window is in: gap k lies between
// window k-1 and window k (gap 0 before the first, gap len(windows)
// after the last).
func gapOf(t time.Time, windows []Window) int {
	k := 0
	for k < len(windows) && !windows[k].To.After(t) {
		k++
	}
	return k
}

// pureByGap sorts the samples that overlap no window by their gap.
func pureByGap(samples []Sample, windows []Window) map[int][]Sample {
	out := map[int][]Sample{}
	for _, s := range samples {
		in := false
		for _, w := range windows {
			if overlap(s.From, s.To, w.From, w.To) > 0 {
				in = true
				break
			}
		}
		if !in && s.To.After(s.From) {
			g := gapOf(s.From, windows)
			out[g] = append(out[g], s)
		}
	}
	return out
}

type segment struct {
	gap      int
	from, to time.Time
}

// outside is the parts of sample s outside every window, with their gaps.
func outside(s Sample, windows []Window) []segment {
	var out []segment
	t := s.From
	for _, w := range windows {
		if !w.To.After(t) {
			continue
		}
		if !w.From.Before(s.To) {
			break
		}
		if w.From.After(t) {
			out = append(out, segment{gap: gapOf(t, windows), from: t, to: w.From})
		}
		t = w.To
		if !t.Before(s.To) {
			return out
		}
	}
	if s.To.After(t) {
		out = append(out, segment{gap: gapOf(t, windows), from: t, to: s.To})
	}
	return out
}

// nearest is the sample of ss closest in time to (from, to], nil if none.
func nearest(ss []Sample, from, to time.Time) *Sample {
	var best *Sample
	var bestD time.Duration
	for i := range ss {
		var d time.Duration
		switch {
		case !ss[i].To.After(from):
			d = from.Sub(ss[i].To)
		case !ss[i].From.Before(to):
			d = ss[i].From.Sub(to)
		}
		if best == nil || d < bestD {
			best, bestD = &ss[i], d
		}
	}
	return best
}

// PauseRates are, per key, the mean and the largest rate (per second) of
// the samples wholly in the pauses between windows (not before the first
// nor after the last): what the machine did while the run paused.
func PauseRates(samples []Sample, windows []Window) (mean, peak map[string]float64, n int) {
	mean, peak = map[string]float64{}, map[string]float64{}
	var secs float64
	for g, ss := range pureByGap(samples, windows) {
		if g == 0 || g == len(windows) {
			continue
		}
		for _, s := range ss {
			dt := s.To.Sub(s.From).Seconds()
			secs += dt
			n++
			for k, v := range s.V {
				mean[k] += v
				peak[k] = math.Max(peak[k], v/dt)
			}
		}
	}
	for k := range mean {
		mean[k] /= secs
	}
	return mean, peak, n
}

// overlap is the length of (a0, a1] ∩ (b0, b1].
func overlap(a0, a1, b0, b1 time.Time) time.Duration {
	from, to := a0, a1
	if b0.After(from) {
		from = b0
	}
	if b1.Before(to) {
		to = b1
	}
	if !to.After(from) {
		return 0
	}
	return to.Sub(from)
}

// Point is a reading of cumulative counters at T.
type Point struct {
	T time.Time
	V map[string]float64
}

// Deltas turns cumulative readings into samples: each sample is the
// difference of two consecutive readings, over the time between them. A
// key missing from either reading is left out of that sample.
func Deltas(points []Point) []Sample {
	sort.SliceStable(points, func(i, j int) bool { return points[i].T.Before(points[j].T) })
	var out []Sample
	for i := 1; i < len(points); i++ {
		a, b := points[i-1], points[i]
		s := Sample{From: a.T, To: b.T, V: map[string]float64{}}
		for k, v := range b.V {
			if p, ok := a.V[k]; ok {
				s.V[k] = v - p
			}
		}
		out = append(out, s)
	}
	return out
}
