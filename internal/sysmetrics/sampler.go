// Package sysmetrics samples what the measured processes and the data dir's
// block device did during each interval and step: CPU, context switches,
// storage bytes, memory, device IO and database size, read from /proc and
// /sys through github.com/prometheus/procfs. docs/metrics.md defines every
// figure it produces.
package sysmetrics

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"

	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/workload"
)

// clientMode says how the client's own CPU is known.
type clientMode int

const (
	// clientSeparate: server engines; the client is rumbench's process.
	clientSeparate clientMode = iota
	// clientIsProcess: the null engine; everything the process does is
	// the client's.
	clientIsProcess
	// clientShared: embedded engines; client and engine share a process
	// and its CPU cannot be split.
	clientShared
)

// OnceLog prints each distinct message once, so a counter that is
// unavailable is explained once per run, not once per interval.
type OnceLog struct {
	mu   sync.Mutex
	w    io.Writer
	seen map[string]bool
}

// NewOnceLog returns a log writing to w (nil discards).
func NewOnceLog(w io.Writer) *OnceLog {
	if w == nil {
		w = io.Discard
	}
	return &OnceLog{w: w, seen: map[string]bool{}}
}

// Printf prints the message unless it was printed before.
func (l *OnceLog) Printf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[msg] {
		return
	}
	l.seen[msg] = true
	fmt.Fprintf(l.w, "rumbench: metrics: %s\n", msg)
}

// Factory returns the observer factory the runner uses; unavailable counters
// are explained on log once.
func Factory(log io.Writer) runner.ObserverFactory {
	once := NewOnceLog(log)
	return func(ctx context.Context, db model.DB, dataDir string) (runner.Observer, error) {
		return New(ctx, db, dataDir, once), nil
	}
}

// Sampler is the system-metrics observer of one opened engine. It never
// fails a run: what it cannot read is null, with the reason.
type Sampler struct {
	mu      sync.Mutex
	log     *OnceLog
	rd      *reader
	tr      *tracker
	dataDir string
	client  clientMode
	setDesc string
	devErr  error

	// Per step.
	timed     bool    // a time-bounded (query) step: see timeBounded
	longest   float64 // the longest interval so far: the nominal length
	totals    [numFields]uint64
	have      [numFields]bool
	lastOK    [numFields]bool
	errs      [numFields]error
	members   int
	insRates  []float64
	qryRates  []float64
	secs      []float64
	lastPSS   *uint64
	lastRSS   *uint64
	lastPSSOK bool
}

var _ runner.Observer = (*Sampler)(nil)

// New prepares a sampler for db, whose data lives in dataDir. The measured
// process set is rumbench itself, or the server's process tree when db
// implements model.ProcessOwner.
func New(ctx context.Context, db model.DB, dataDir string, log *OnceLog) *Sampler {
	if log == nil {
		log = NewOnceLog(nil)
	}
	s := &Sampler{log: log, tr: newTracker(), dataDir: dataDir, rd: &reader{}}
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		log.Printf("/proc is not available (%v): every system metric is null", err)
		s.rd.unavailable = fmt.Errorf("/proc is not available: %w", err)
	}
	s.rd.fs = fs
	self := os.Getpid()
	if po, ok := db.(model.ProcessOwner); ok {
		s.client = clientSeparate
		s.rd.client = self
		pid, sdir, perr := po.ServerProcess(ctx)
		switch {
		case perr != nil:
			log.Printf("server process unknown (%v): server CPU, IO and memory are null", perr)
		case pid <= 0:
			log.Printf("server process unknown (no pid): server CPU, IO and memory are null")
		default:
			s.rd.root, s.rd.tree = pid, true
			s.setDesc = fmt.Sprintf("server process tree rooted at pid %d", pid)
		}
		if sdir != "" {
			s.dataDir = sdir
		}
	} else {
		s.rd.root = self
		s.setDesc = fmt.Sprintf("rumbench process (pid %d), which embeds the engine", self)
		s.client = clientShared
		if db.Info().Family == model.NoFamily {
			s.client = clientIsProcess
			s.setDesc = fmt.Sprintf("rumbench process (pid %d); the null engine does no work, so this is the client", self)
		}
	}
	if err == nil {
		dev, derr := ResolveDevice(s.dataDir)
		if derr != nil {
			s.devErr = derr
			log.Printf("no block device for data dir %s (%v): device counters are null; write_amp uses the processes' write_bytes", s.dataDir, derr)
		} else if bfs, berr := blockdevice.NewFS(procRoot, sysRoot); berr != nil {
			s.devErr = berr
			log.Printf("block device stats unavailable (%v): device counters are null", berr)
		} else {
			s.rd.dev, s.rd.bfs = dev, &bfs
		}
	}
	return s
}

// Device is the resolved block device (nil when none).
func (s *Sampler) Device() *Device { return s.rd.dev }

// StepStart takes the baseline sample.
func (s *Sampler) StepStart(step string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tr.reset()
	s.timed, s.longest = timeBounded(step), 0
	s.totals, s.have, s.lastOK, s.errs = [numFields]uint64{}, [numFields]bool{}, [numFields]bool{}, [numFields]error{}
	s.insRates, s.qryRates, s.secs = nil, nil, nil
	s.lastPSS, s.lastRSS = nil, nil
	s.observe(s.rd.read(false))
}

// observe feeds one reading to the tracker and accumulates the step totals.
func (s *Sampler) observe(r *reading) Deltas {
	d := s.tr.observe(r)
	for f := range d.V {
		if d.OK[f] {
			s.totals[f] += d.V[f]
			s.have[f] = true
		}
		s.lastOK[f] = r.vals[f] != nil
		if r.errs[f] != nil {
			s.errs[f] = r.errs[f]
			s.explain(field(f), r.errs[f])
		}
	}
	if r.members > 0 {
		s.members = r.members
	}
	if r.pss != nil {
		s.lastPSS = r.pss
	}
	if r.rssLargest != nil {
		s.lastRSS = r.rssLargest
	}
	return d
}

func (s *Sampler) explain(f field, err error) {
	switch f {
	case fClientCPU:
		if s.client != clientSeparate {
			return // documented, not an error
		}
	case fDevReads, fDevReadSect, fDevWrites, fDevWriteSect:
		if s.rd.dev == nil {
			return // already explained at start
		}
	}
	s.log.Printf("%s unavailable: %v", fieldKeys[f], err)
}

// Interval samples at the clock's tick and returns the raw deltas.
func (s *Sampler) Interval(iv *measure.Interval) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rd.read(false)
	d := s.observe(r)
	out := make(map[string]any, numFields+4)
	for f := range d.V {
		if field(f) == fClientCPU && s.client != clientSeparate {
			continue
		}
		if d.OK[f] {
			out[fieldKeys[f]] = d.V[f]
		} else {
			out[fieldKeys[f]] = nil
		}
	}
	if r.pss != nil {
		out["pss_bytes"] = *r.pss
	}
	if r.members > 0 {
		out["processes"] = r.members
	}

	ins, qry := iv.Rate(measure.OpInsert), iv.OpRate(measure.OpQuery)
	s.insRates = append(s.insRates, ins)
	s.qryRates = append(s.qryRates, qry)
	s.secs = append(s.secs, iv.Seconds)
	s.longest = max(s.longest, iv.Seconds)
	if m := s.liveMarker(iv); m != "" {
		out["marker"] = m
	}
	return out
}

// timeBounded reports whether a step runs its workers for a set time (the
// query steps qr*, qp*) rather than until they have done a set amount of
// work. docs/design.md describes the steps.
func timeBounded(step string) bool {
	return strings.HasPrefix(step, "qr") || strings.HasPrefix(step, "qp")
}

// liveMarker returns the live line's STALL marker for the newest interval,
// following the step summary's rules (stalls) as far as they can be known
// while the step runs: the newest interval is judged against the median so
// far, an interval shorter than half the nominal one (the longest so far) is
// not judged, and an operation that has not run yet in the step is never
// stalled. In a count-bounded step an interval without progress is not
// flagged: the operation may have finished (the summary decides once the
// step is over). In a time-bounded step it is, unless it is the deleter's
// catch-up after the timed window (deletes but no inserts or queries).
func (s *Sampler) liveMarker(iv *measure.Interval) string {
	if iv.Seconds < s.longest/2 {
		return ""
	}
	ins, qry := s.insRates[len(s.insRates)-1], s.qryRates[len(s.qryRates)-1]
	if s.timed && ins <= 0 && qry <= 0 && iv.Rate(measure.OpDelete) > 0 {
		return ""
	}
	m := ""
	if liveStall(s.insRates, s.secs, s.timed) {
		m += " ins"
	}
	if liveStall(s.qryRates, s.secs, s.timed) {
		m += " qry"
	}
	if m == "" {
		return ""
	}
	return "STALL" + m
}

// liveStall judges the newest of rates against the median of the intervals
// so far (short ones excluded, as in the summary). An operation that has not
// run yet in the step is never stalled; in a count-bounded step (timed
// false) neither is one without progress in the newest interval.
func liveStall(rates, secs []float64, timed bool) bool {
	n := len(rates)
	cur := rates[n-1]
	if cur <= 0 && !timed {
		return false
	}
	longest := 0.0
	for _, x := range secs {
		longest = max(longest, x)
	}
	active := false
	judged := make([]float64, 0, n)
	for i, r := range rates {
		if i < n-1 {
			active = active || r > 0
		}
		if i < len(secs) && secs[i] < longest/2 {
			continue
		}
		judged = append(judged, r)
	}
	if !active {
		return false
	}
	return measure.IsStall(cur, measure.Median(judged))
}

// StepEnd adds the step's metrics and stalls to its summary.
func (s *Sampler) StepEnd(sum *results.Step, c *measure.Clock) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Writes still buffered by the OS belong to this step: flush the data
	// dir's filesystem and take one more reading, outside the step's timed
	// window, so device bytes are not deferred to the next step.
	if s.rd.dev != nil && s.dataDir != "" {
		if err := syncFilesystem(s.dataDir); err != nil {
			s.log.Printf("cannot flush the data dir's filesystem (%v): device writes still buffered at a step's end count in the next step", err)
		} else {
			s.observe(s.rd.read(false))
		}
	}
	// A missing last sample leaves the tail uncounted; one more reading
	// spans the gap.
	for f := range s.lastOK {
		if !s.lastOK[f] && s.have[f] {
			s.observe(s.rd.read(false))
			break
		}
	}
	lv := s.rd.read(true)
	if lv.pss != nil {
		s.lastPSS = lv.pss
	}
	if lv.rssLargest != nil {
		s.lastRSS = lv.rssLargest
	}
	if lv.pssErr != nil {
		s.log.Printf("PSS unavailable (%v): memory is the RSS of the largest process", lv.pssErr)
	}
	sum.Metrics = s.metrics(sum)
	sum.Stalls = s.stalls(c)
}

func (s *Sampler) stalls(c *measure.Clock) *results.Stalls {
	// The clock's rule: an interval shorter than half the nominal length
	// (the step's last, partial one) is too noisy to judge.
	half := c.Interval().Seconds() / 2
	var ins, qry, secs []float64
	for i := range s.secs {
		if s.secs[i] < half && len(s.secs) > 1 {
			continue
		}
		ins, qry, secs = append(ins, s.insRates[i]), append(qry, s.qryRates[i]), append(secs, s.secs[i])
	}
	out := &results.Stalls{}
	if s.timed {
		// Writers and query workers are meant to run for the whole timed
		// window: an operation that stops early or never starts stalls.
		w := measure.TimedWindow(ins, qry)
		st := measure.FindStallsTimed(ins, secs, w)
		out.Insert = &st
		qst := measure.FindStallsTimed(qry, secs, w)
		out.Query = &qst
		return out
	}
	if c.Total(measure.OpInsert) != nil {
		st := measure.FindStalls(ins, secs)
		out.Insert = &st
	}
	if c.Total(measure.OpQuery) != nil {
		st := measure.FindStalls(qry, secs)
		out.Query = &st
	}
	if out.Insert == nil && out.Query == nil {
		return nil
	}
	return out
}

// total returns a step total, or nil and why not.
func (s *Sampler) total(f field) (*float64, string) {
	if s.have[f] {
		v := float64(s.totals[f])
		return &v, ""
	}
	if s.errs[f] != nil {
		return nil, s.errs[f].Error()
	}
	return nil, "no sample was taken"
}

func (s *Sampler) metrics(sum *results.Step) *results.Metrics {
	m := &results.Metrics{ProcessSet: s.setDesc, Processes: s.members, NullReasons: map[string]string{}}
	if s.rd.dev != nil {
		m.Device, m.DeviceDisk = s.rd.dev.String(), s.rd.dev.Disk
	}
	null := func(name, why string) { m.NullReasons[name] = why }

	cpu, cpuWhy := s.total(fCPU)
	cs, csWhy := s.total(fCS)
	prb, prWhy := s.total(fProcRead)
	pwb, pwWhy := s.total(fProcWrite)
	devR, devWhy := s.total(fDevReads)
	devRS, _ := s.total(fDevReadSect)
	devW, _ := s.total(fDevWrites)
	devWS, _ := s.total(fDevWriteSect)
	devD, ddWhy := s.total(fDevDiscards)
	devDS, _ := s.total(fDevDiscardSect)
	if s.rd.dev == nil && s.devErr != nil {
		devWhy, ddWhy = s.devErr.Error(), s.devErr.Error()
	}
	kb := func(v *float64, perUnit float64) *float64 {
		if v == nil {
			return nil
		}
		x := math.Round(*v*perUnit/1024*10) / 10
		return &x
	}
	const sector = 512
	m.CPUUs, m.ContextSwitches = toInt(cpu), toInt(cs)
	m.DevReads, m.DevWrites, m.DevDiscards = toInt(devR), toInt(devW), toInt(devD)
	m.DevRKB, m.DevWKB, m.DevDiscardKB = kb(devRS, sector), kb(devWS, sector), kb(devDS, sector)
	m.ProcRKB, m.ProcWKB = kb(prb, 1), kb(pwb, 1)
	for name, v := range map[string]struct {
		p   any
		why string
	}{
		"cpu_us": {m.CPUUs, cpuWhy}, "cs": {m.ContextSwitches, csWhy},
		"dev_reads": {m.DevReads, devWhy}, "dev_writes": {m.DevWrites, devWhy},
		"dev_rkb": {m.DevRKB, devWhy}, "dev_wkb": {m.DevWKB, devWhy},
		"dev_discards": {m.DevDiscards, ddWhy}, "dev_discard_kb": {m.DevDiscardKB, ddWhy},
		"proc_rkb": {m.ProcRKB, prWhy}, "proc_wkb": {m.ProcWKB, pwWhy},
	} {
		if isNil(v.p) {
			null(name, v.why)
		}
	}

	// Client CPU.
	switch s.client {
	case clientSeparate:
		c, why := s.total(fClientCPU)
		m.ClientCPUUs = toInt(c)
		m.ClientCPUSource = "rumbench process user+sys CPU (the server runs in other processes)"
		if c == nil {
			null("client_cpu_us", why)
		}
	case clientIsProcess:
		m.ClientCPUUs = m.CPUUs
		m.ClientCPUSource = "rumbench process user+sys CPU (null engine: the process is only the client)"
		if m.CPUUs == nil {
			null("client_cpu_us", cpuWhy)
		}
	case clientShared:
		m.ClientCPUSource = "included in cpu_us: the embedded engine runs in the client's process"
		null("client_cpu_us", "embedded engine: client and engine share the rumbench process, so cpu_us includes the client; the null engine's client_cpu_us_per_op on the same workload is the client's cost")
	}

	// Denominators: inserted rows in write steps, queries in query steps.
	ins, qry := float64(sum.Inserted), float64(sum.Queries)
	writeStep, queryStep := ins > 0 && qry == 0, qry > 0
	per := func(name string, v *float64, why string, denom float64, applies bool, notWhy string) *float64 {
		switch {
		case !applies:
			null(name, notWhy)
		case v == nil:
			null(name, why)
		default:
			x := round(*v / denom)
			return &x
		}
		return nil
	}
	notWrite := "not a write step (no rows inserted, or a query step: see the per-query figures)"
	notQuery := "not a query step (no queries)"
	m.CPUUsPerInsert = per("cpu_us_per_insert", cpu, cpuWhy, ins, writeStep, notWrite)
	m.CPUUsPerQuery = per("cpu_us_per_query", cpu, cpuWhy, qry, queryStep, notQuery)
	m.CSPerInsert = per("cs_per_insert", cs, csWhy, ins, writeStep, notWrite)
	m.ReadsPerInsert = per("reads_per_insert", devR, devWhy, ins, writeStep, notWrite)
	m.RKBPerInsert = per("rkb_per_insert", m.DevRKB, devWhy, ins, writeStep, notWrite)
	m.RKBPerQuery = per("rkb_per_query", m.DevRKB, devWhy, qry, queryStep, notQuery)
	m.WKBPerInsert = per("wkb_per_insert", m.DevWKB, devWhy, ins, ins > 0, "no rows inserted")
	clientUs := toFloat(m.ClientCPUUs)
	switch {
	case s.client == clientShared:
	case writeStep:
		m.ClientCPUUsPerOp = per("client_cpu_us_per_op", clientUs, m.NullReasons["client_cpu_us"], ins, true, "")
	case queryStep:
		m.ClientCPUUsPerOp = per("client_cpu_us_per_op", clientUs, m.NullReasons["client_cpu_us"], qry, true, "")
	default:
		null("client_cpu_us_per_op", "no inserts or queries in this step")
	}
	if s.client == clientShared {
		null("client_cpu_us_per_op", m.NullReasons["client_cpu_us"])
	}

	// Levels at step end.
	if size, err := AllocatedBytes(s.dataDir); err == nil {
		m.SizeBytes = &size
	} else {
		null("size_bytes", err.Error())
		s.log.Printf("data dir size unavailable: %v", err)
	}
	switch {
	case s.lastPSS != nil:
		v := int64(*s.lastPSS)
		m.PSSBytes, m.MemorySource = &v, "pss"
	case s.lastRSS != nil && *s.lastRSS > 0:
		v := int64(*s.lastRSS)
		m.PSSBytes, m.MemorySource = &v, "rss_largest"
	default:
		null("pss_bytes", "memory of the measured processes could not be read")
	}

	// Amplification.
	logIns, insOK := detailInt(sum.Details, workload.DetailLogicalBytesInserted)
	live, liveOK := detailInt(sum.Details, workload.DetailLogicalLiveBytes)
	if insOK {
		m.LogicalBytesInserted = &logIns
	}
	if liveOK {
		m.LogicalLiveBytes = &live
	}
	written, src := m.DevWKB, "device"
	if written == nil {
		written, src = m.ProcWKB, "process"
	}
	switch {
	case !insOK:
		null("write_amp", "the workload did not report logical bytes inserted")
	case logIns <= 0:
		null("write_amp", "no logical bytes inserted in this step")
	case written == nil:
		null("write_amp", "neither device nor process bytes written are available: "+devWhy+"; "+pwWhy)
	default:
		x := round(*written * 1024 / float64(logIns))
		m.WriteAmp, m.WriteAmpSource = &x, src
	}
	switch {
	case !liveOK:
		null("space_amp", "the workload did not report logical live bytes")
	case live <= 0:
		null("space_amp", "no live rows")
	case m.SizeBytes == nil:
		null("space_amp", m.NullReasons["size_bytes"])
	default:
		x := round(float64(*m.SizeBytes) / float64(live))
		m.SpaceAmp = &x
	}
	if len(m.NullReasons) == 0 {
		m.NullReasons = nil
	}
	return m
}

// Close implements runner.Observer.
func (s *Sampler) Close() error { return nil }

// round keeps four significant digits: enough for every published figure
// and short in JSON.
func round(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(v))))
	if p < 1 {
		return math.Round(v)
	}
	return math.Round(v*p) / p
}

func toInt(v *float64) *int64 {
	if v == nil {
		return nil
	}
	x := int64(*v)
	return &x
}

func toFloat(v *int64) *float64 {
	if v == nil {
		return nil
	}
	x := float64(*v)
	return &x
}

func isNil(p any) bool {
	switch v := p.(type) {
	case *int64:
		return v == nil
	case *float64:
		return v == nil
	}
	return p == nil
}

// detailInt reads an integer step detail, whatever numeric type it has.
func detailInt(d map[string]any, k string) (int64, bool) {
	switch v := d[k].(type) {
	case int64:
		return v, true
	case int:
		return int64(v), true
	case float64:
		return int64(v), true
	}
	return 0, false
}
