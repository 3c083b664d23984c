package results

import (
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
