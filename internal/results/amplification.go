package results

import (
	"fmt"
	"strings"

	"rumbench/internal/units"
)

// Write and space amplification (docs/metrics.md) are computed here for the
// system-metrics sampler and for merge alike: one formula each, one set of
// reasons when they cannot be computed.

// SetLogicalBytes records the logical sizes a step reported in its details
// (DetailLogicalBytesInserted, DetailLogicalLiveBytes): the denominators of
// write and space amplification.
func (m *Metrics) SetLogicalBytes(details map[string]any) {
	m.LogicalBytesInserted, m.LogicalLiveBytes = nil, nil
	if v, ok := DetailInt(details, DetailLogicalBytesInserted); ok {
		m.LogicalBytesInserted = &v
	}
	if v, ok := DetailInt(details, DetailLogicalLiveBytes); ok {
		m.LogicalLiveBytes = &v
	}
}

// BytesWritten is the KB written that write amplification divides, and
// whose they are: the device's, or the measured processes' when no device
// figure was taken.
func (m *Metrics) BytesWritten() (kb *float64, source string) {
	if m.DevWKB != nil {
		return m.DevWKB, "device"
	}
	return m.ProcWKB, "process"
}

// SetWriteAmp sets write amplification: BytesWritten over the logical bytes
// inserted (SetLogicalBytes first), four significant digits, with its
// source. When it cannot be computed it is null with the reason;
// unwritten is the reason when no bytes written were measured, which only
// the caller knows.
func (m *Metrics) SetWriteAmp(unwritten string) {
	m.WriteAmp, m.WriteAmpSource = nil, ""
	if m.NullReasons == nil {
		m.NullReasons = map[string]string{}
	}
	delete(m.NullReasons, "write_amp")
	written, source := m.BytesWritten()
	switch {
	case m.LogicalBytesInserted == nil:
		m.NullReasons["write_amp"] = "the workload did not report logical bytes inserted"
	case *m.LogicalBytesInserted <= 0:
		m.NullReasons["write_amp"] = "no logical bytes inserted in this step"
	case written == nil:
		m.NullReasons["write_amp"] = unwritten
	default:
		x := units.RoundSig(*written * 1024 / float64(*m.LogicalBytesInserted))
		m.WriteAmp, m.WriteAmpSource = &x, source
	}
}

// SetSpaceAmp sets space amplification, the same for every engine: the
// engine's live size at step end (engineSize bytes, -1 unknown) over the
// logical live bytes (SetLogicalBytes first), four significant digits,
// source SpaceAmpLive. One rule for every engine: the engine's live size,
// not the data dir (preallocated logs, other databases) divides. Null with
// the reason when either is unknown or nothing is live.
func (m *Metrics) SetSpaceAmp(engineSize int64) {
	m.SpaceAmp, m.SpaceAmpSource = nil, ""
	if m.NullReasons == nil {
		m.NullReasons = map[string]string{}
	}
	delete(m.NullReasons, "space_amp")
	switch {
	case m.LogicalLiveBytes == nil:
		m.NullReasons["space_amp"] = "the workload did not report logical live bytes"
	case *m.LogicalLiveBytes <= 0:
		m.NullReasons["space_amp"] = "no live rows"
	case engineSize < 0:
		m.NullReasons["space_amp"] = "the engine did not report its live size"
	default:
		x := units.RoundSig(float64(engineSize) / float64(*m.LogicalLiveBytes))
		m.SpaceAmp, m.SpaceAmpSource = &x, SpaceAmpLive
	}
}

// IO noise: how much of a step's device traffic other processes may
// account for before rumbench warns (the live output, the step's device
// table and the report), and the least traffic worth a warning.
const (
	NoiseIOShare = 0.1
	NoiseIOMinKB = 1024
)

// SetIONoise records the IO other processes did during the step (KB, from
// /proc/PID/io; nil when unknown) and its share of the device's traffic:
// the larger of reads over device reads and writes over device writes.
func (m *Metrics) SetIONoise(otherRKB, otherWKB *float64) {
	m.OtherProcRKB, m.OtherProcWKB, m.OtherIOShare = otherRKB, otherWKB, nil
	share := func(other, dev *float64) (float64, bool) {
		if other == nil || dev == nil {
			return 0, false
		}
		if *dev <= 0 {
			if *other > 0 {
				return 1, true
			}
			return 0, true
		}
		return *other / *dev, true
	}
	r, okR := share(otherRKB, m.DevRKB)
	w, okW := share(otherWKB, m.DevWKB)
	if okR || okW {
		x := units.Round(max(r, w), 3)
		m.OtherIOShare = &x
	}
}

// NoisyIO describes the step's IO noise when it is above the warning
// threshold: other processes' reads or writes over NoiseIOShare of the
// device's and over NoiseIOMinKB; "" otherwise.
func (m *Metrics) NoisyIO() string {
	var parts []string
	check := func(what string, other, dev *float64) {
		if other == nil || *other < NoiseIOMinKB {
			return
		}
		if dev != nil && *dev > 0 && *other <= NoiseIOShare**dev {
			return
		}
		of := "none on the device"
		if dev != nil && *dev > 0 {
			of = fmt.Sprintf("%.0f%% of the device's %s", 100**other / *dev, units.Num(*dev/1024)+" MB")
		}
		parts = append(parts, fmt.Sprintf("other processes %s %s MB (%s)", what, units.Num(*other/1024), of))
	}
	check("read", m.OtherProcRKB, m.DevRKB)
	check("wrote", m.OtherProcWKB, m.DevWKB)
	return strings.Join(parts, ", ")
}
