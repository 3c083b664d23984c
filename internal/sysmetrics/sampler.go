// Package sysmetrics samples what the measured processes and the data dir's
// block device did during each interval and step: CPU, context switches,
// storage bytes, memory, device IO and database size, read from /proc and
// /sys through github.com/prometheus/procfs. docs/metrics.md defines every
// figure it produces.
package sysmetrics

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"

	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/units"
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
	fmt.Fprintf(l.w, "%s%s\n", logPrefix, msg)
}

// logPrefix starts every line an OnceLog prints.
const logPrefix = "rumbench: metrics: "

// Filter returns a writer that passes w's lines through, except the
// metrics lines (logPrefix) l or an earlier line has said already: an
// engine's child process explains what its sampler cannot read, or warns
// about the device, as the parent and the other children do, and the user
// reads it once per run.
func (l *OnceLog) Filter(w io.Writer) io.Writer { return &onceFilter{l: l, w: w} }

type onceFilter struct {
	l    *OnceLog
	w    io.Writer
	mu   sync.Mutex
	part []byte
}

func (f *onceFilter) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.part = append(f.part, b...)
	for {
		i := bytes.IndexByte(f.part, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := f.part[:i+1]
		if msg, ok := bytes.CutPrefix(line, []byte(logPrefix)); !ok || f.l.first(string(bytes.TrimSuffix(msg, []byte("\n")))) {
			if _, err := f.w.Write(line); err != nil {
				return len(b), err
			}
		}
		f.part = f.part[i+1:]
	}
}

// first records msg as said and reports whether it was new.
func (l *OnceLog) first(msg string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[msg] {
		return false
	}
	l.seen[msg] = true
	return true
}

// Factory returns the observer factory the runner uses; unavailable counters
// are explained on log once.
func Factory(log io.Writer) runner.ObserverFactory { return FactoryLog(NewOnceLog(log)) }

// FactoryLog is Factory sharing once with other factories of the run (a
// sweep's cells), so each message is said once per run.
func FactoryLog(once *OnceLog) runner.ObserverFactory {
	return func(ctx context.Context, db model.DB, dataDir, bundleDir string) (runner.Observer, error) {
		s := New(ctx, db, dataDir, once)
		s.checkBundleDevice(bundleDir)
		return s, nil
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
	// The on-disk footprint: the directory measured, what it is
	// (results.Disk*), or why nothing honest can be measured.
	diskDir, diskSource, diskWhy string
	client                       clientMode
	setDesc                      string
	devErr                       error

	// memFS names the memory filesystem (tmpfs, ramfs) the data dir is on,
	// where nothing reaches storage.
	memFS string
	// warnings are said once, when the first step starts.
	warnings []string

	// watchSize adds the data's on-disk size to the step's warm-up
	// intervals (runner.SizeWatcher).
	watchSize bool

	// Per step.
	bundleBytes int64 // what the results bundle wrote during the step
	totals      [numFields]uint64
	have        [numFields]bool
	lastOK      [numFields]bool
	errs        [numFields]error
	members     int
	lastPSS     *uint64
	lastRSS     *uint64
	lastPSSOK   bool
	// lastSkipped: the last sample left a counter for later.
	lastSkipped bool
	// The step's first and last samples: the span the host's noise is
	// measured over (past the clock's stop: the step-end flush).
	spanFrom, spanTo time.Time
	// endFlush is the step's end-of-step flush, when one was made.
	endFlush *endFlush
	// filesystemFlush is set once the engine's files could not be
	// flushed one by one: the data dir's filesystem is flushed instead.
	filesystemFlush bool
}

var (
	_ runner.Observer    = (*Sampler)(nil)
	_ runner.SizeWatcher = (*Sampler)(nil)
)

// WatchSize implements runner.SizeWatcher: the on-disk size measured as
// disk_bytes is (the engine's data, AllocatedBytes), read at each warm-up
// interval.
func (s *Sampler) WatchSize(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchSize = on
	if on && s.diskDir == "" {
		s.log.Printf("--steady-state size: the on-disk size cannot be measured (%s): the rule runs to its limit", s.diskWhy)
	}
}

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
		s.diskDir, s.diskSource, s.diskWhy = serverDisk(ctx, db, sdir, dataDir)
	} else {
		s.diskDir, s.diskSource = dataDir, results.DiskDataDir
		s.rd.root = self
		s.setDesc = fmt.Sprintf("rumbench process (pid %d), which embeds the engine", self)
		s.client = clientShared
		if db.Info().Family == model.NoFamily {
			s.client = clientIsProcess
			s.setDesc = fmt.Sprintf("rumbench process (pid %d); the null engine does no work, so this is the client", self)
		}
	}
	if fsType := memoryFS(s.dataDir); fsType != "" {
		s.memFS = fsType
		s.warnings = append(s.warnings, fmt.Sprintf("WARNING: data dir %s is on %s: nothing reaches storage, so KB written and read are 0 and write_amp is null; give --data-dir on a disk to measure IO", s.dataDir, fsType))
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
func (s *Sampler) StepStart(string, results.StepDesc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.warnings {
		s.log.Printf("%s", w)
	}
	s.warnings = nil
	s.tr.reset()
	s.totals, s.have, s.lastOK, s.errs = [numFields]uint64{}, [numFields]bool{}, [numFields]bool{}, [numFields]error{}
	s.lastPSS, s.lastRSS = nil, nil
	s.spanFrom = time.Time{}
	s.observe(s.rd.read(true, false, 0))
}

// observe feeds one reading to the tracker and accumulates the step totals.
func (s *Sampler) observe(r *reading) Deltas {
	d := s.tr.observe(r)
	if s.spanFrom.IsZero() {
		s.spanFrom = r.at
	}
	s.spanTo = r.at
	for f := range d.V {
		if d.OK[f] {
			s.totals[f] += d.V[f]
			s.have[f] = true
		}
		s.lastOK[f] = r.vals[f] != nil || r.skipped[f]
		if r.errs[f] != nil {
			s.errs[f] = r.errs[f]
			s.explain(field(f), r.errs[f])
		}
		if r.partial[f] != nil {
			s.log.Printf("%v", r.partial[f])
		}
	}
	if r.members > 0 {
		s.members = r.members
	}
	s.lastSkipped = false
	for _, sk := range r.skipped {
		s.lastSkipped = s.lastSkipped || sk
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
	case fClientCPU, fClientUser, fClientSys:
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
	// Warm-up samples are full: the step's figures start from a complete
	// baseline.
	r := s.rd.read(iv.Warmup, false, iv.Loop)
	d := s.observe(r)
	if iv.Warmup {
		// The step's figures start after its warm-up.
		s.totals, s.have = [numFields]uint64{}, [numFields]bool{}
		s.spanFrom = r.at
	}
	out := make(map[string]any, numFields+4)
	for f := range d.V {
		if isClientField(field(f)) && s.client != clientSeparate || r.skipped[f] {
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
	if s.watchSize && iv.Warmup && s.diskDir != "" {
		if size, err := AllocatedBytes(s.diskDir); err == nil {
			out[runner.SysDiskBytes] = size
		} else {
			s.log.Printf("--steady-state size: on-disk size unavailable (%v)", err)
		}
	}
	return out
}

// StepStop takes the step's final readings as soon as its clock stopped,
// before the runner asks the engine for its size and statistics: that work
// is not the step's.
func (s *Sampler) StepStop(_ *measure.Clock, bundleBytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Writes still buffered by the OS belong to this step: flush the
	// engine's files and take one more reading, outside the step's timed
	// window, so device bytes are not deferred to the next step.
	s.endFlush = nil
	if s.rd.dev != nil && s.dataDir != "" {
		t0 := time.Now()
		scope, err := s.flush()
		if err != nil {
			s.log.Printf("cannot flush the data dir (%v): device writes still buffered at a step's end count in the next step", err)
		} else {
			took := time.Since(t0).Seconds()
			// The reading's delta since the clock's last tick is the
			// flush's.
			d := s.observe(s.rd.read(true, false, 0))
			s.endFlush = &endFlush{scope: scope, seconds: took,
				wkb: float64(d.V[fDevWriteSect]) * 512 / 1024, wkbOK: d.OK[fDevWriteSect]}
		}
	}
	// A missing last sample leaves the tail uncounted; one more reading
	// spans the gap.
	// So does one whose counters were not all due at the last tick.
	for f := range s.lastOK {
		if !s.lastOK[f] && s.have[f] || s.lastSkipped {
			s.observe(s.rd.read(true, false, 0))
			break
		}
	}
	lv := s.rd.read(true, true, 0)
	if lv.pss != nil {
		s.lastPSS = lv.pss
	}
	if lv.rssLargest != nil {
		s.lastRSS = lv.rssLargest
	}
	if lv.pssErr != nil {
		s.log.Printf("PSS unavailable (%v): memory is the RSS of the largest process", lv.pssErr)
	}
	s.bundleBytes = bundleBytes
}

// StepEnd adds the step's metrics to its summary.
func (s *Sampler) StepEnd(sum *results.Step, _ *measure.Clock) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sum.Metrics = s.metrics(sum)
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
	cpuUser, _ := s.total(fCPUUser)
	cpuSys, _ := s.total(fCPUSys)
	cs, csWhy := s.total(fCS)
	minflt, fltWhy := s.total(fMinFlt)
	majflt, _ := s.total(fMajFlt)
	samp, sampWhy := s.total(fSamplerCPU)
	prb, prWhy := s.total(fProcRead)
	pwb, pwWhy := s.total(fProcWrite)
	pcb, _ := s.total(fProcCancelled)
	devR, devWhy := s.total(fDevReads)
	devRS, _ := s.total(fDevReadSect)
	devW, _ := s.total(fDevWrites)
	devWS, _ := s.total(fDevWriteSect)
	devD, ddWhy := s.total(fDevDiscards)
	devDS, _ := s.total(fDevDiscardSect)
	devF, flWhy := s.total(fDevFlushes)
	devFMs, _ := s.total(fDevFlushMs)
	if s.rd.dev == nil && s.devErr != nil {
		devWhy, ddWhy, flWhy = s.devErr.Error(), s.devErr.Error(), s.devErr.Error()
	}
	kb := func(v *float64, perUnit float64) *float64 {
		if v == nil {
			return nil
		}
		x := units.Round(*v*perUnit/1024, 1)
		return &x
	}
	const sector = 512
	m.CPUUs, m.ContextSwitches, m.SamplerCPUUs = toInt(cpu), toInt(cs), toInt(samp)
	m.CPUUserUs, m.CPUSysUs = toInt(cpuUser), toInt(cpuSys)
	m.MinorFaults, m.MajorFaults = toInt(minflt), toInt(majflt)
	if why := hwCountersWhy(); why != "" {
		for _, k := range hwCounterFigures {
			null(k, why)
		}
	}
	m.DevFlushes, m.DevFlushMs = toInt(devF), toInt(devFMs)
	m.ProcCancelledKB = kb(pcb, 1)
	if ef := s.endFlush; ef != nil {
		secs := units.Round(ef.seconds, 3)
		m.EndFlushS, m.EndFlushScope = &secs, ef.scope
		if ef.wkbOK {
			w := units.Round(ef.wkb, 1)
			m.EndFlushWKB = &w
		}
	}
	m.DevReads, m.DevWrites, m.DevDiscards = toInt(devR), toInt(devW), toInt(devD)
	m.DevRKB, m.DevWKB, m.DevDiscardKB = kb(devRS, sector), kb(devWS, sector), kb(devDS, sector)
	m.ProcRKB, m.ProcWKB = kb(prb, 1), kb(pwb, 1)
	if s.client != clientSeparate {
		// rumbench's own process is measured: its bundle writes are the
		// benchmark's bookkeeping, not the engine's work.
		own := units.Round(float64(s.bundleBytes)/1024, 1)
		m.BundleKB = &own
		if m.ProcWKB != nil {
			x := math.Max(0, units.Round(*m.ProcWKB-own, 1))
			m.ProcWKB = &x
		}
	}
	for name, v := range map[string]struct {
		p   any
		why string
	}{
		"cpu_us": {m.CPUUs, cpuWhy}, "cs": {m.ContextSwitches, csWhy}, "sampler_cpu_us": {m.SamplerCPUUs, sampWhy},
		"dev_reads": {m.DevReads, devWhy}, "dev_writes": {m.DevWrites, devWhy},
		"dev_rkb": {m.DevRKB, devWhy}, "dev_wkb": {m.DevWKB, devWhy},
		"dev_discards": {m.DevDiscards, ddWhy}, "dev_discard_kb": {m.DevDiscardKB, ddWhy},
		"proc_rkb": {m.ProcRKB, prWhy}, "proc_wkb": {m.ProcWKB, pwWhy},
		"dev_flushes": {m.DevFlushes, flWhy}, "minflt": {m.MinorFaults, fltWhy}, "majflt": {m.MajorFaults, fltWhy},
	} {
		if isNil(v.p) {
			null(name, v.why)
		}
	}

	// Client CPU.
	switch s.client {
	case clientSeparate:
		c, why := s.total(fClientCPU)
		cu, _ := s.total(fClientUser)
		cy, _ := s.total(fClientSys)
		m.ClientCPUUs, m.ClientCPUUserUs, m.ClientCPUSysUs = toInt(c), toInt(cu), toInt(cy)
		m.ClientCPUSource = "rumbench process user+sys CPU (getrusage) less the sampler's own (sampler_cpu_us); the server runs in other processes"
		if c == nil {
			null("client_cpu_us", why)
		}
	case clientIsProcess:
		m.ClientCPUUs, m.ClientCPUUserUs, m.ClientCPUSysUs = m.CPUUs, m.CPUUserUs, m.CPUSysUs
		m.ClientCPUSource = "rumbench process user+sys CPU (getrusage) less the sampler's own (sampler_cpu_us); null engine: the process is only the client"
		if m.CPUUs == nil {
			null("client_cpu_us", cpuWhy)
		}
	case clientShared:
		m.ClientCPUSource = "included in cpu_us: the embedded engine runs in the client's process"
		null("client_cpu_us", "embedded engine: client and engine share the rumbench process, so cpu_us includes the client; the null engine's client_cpu_us_per_op on the same workload is the client's cost")
	}

	m.SetPerOp(sum)
	s.noise(m)
	s.ioNoise(m, sum.Step)

	// Levels at step end.
	if s.diskDir == "" {
		null("disk_bytes", s.diskWhy)
	} else if size, err := AllocatedBytes(s.diskDir); err == nil {
		m.DiskBytes, m.DiskSource = &size, s.diskSource
	} else {
		null("disk_bytes", err.Error())
		s.log.Printf("on-disk footprint unavailable: %v", err)
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
	m.SetLogicalBytes(sum.Details)
	if s.memFS != "" {
		null("write_amp", fmt.Sprintf("the data dir is on %s: nothing is written to storage", s.memFS))
	} else {
		m.SetWriteAmp("neither device nor process bytes written are available: " + devWhy + "; " + pwWhy)
	}
	m.SetSpaceAmp(sum.EngineSize)
	if len(m.NullReasons) == 0 {
		m.NullReasons = nil
	}
	return m
}

// Close implements runner.Observer.
func (s *Sampler) Close() error { return nil }

func toInt(v *float64) *int64 {
	if v == nil {
		return nil
	}
	x := int64(*v)
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

// checkBundleDevice warns when the results bundle is written to the device
// that holds the data dir: its writes then count in the device figures.
func (s *Sampler) checkBundleDevice(bundleDir string) {
	if bundleDir == "" || s.rd.dev == nil {
		return
	}
	bd, err := ResolveDevice(bundleDir)
	if err != nil || bd.String() != s.rd.dev.String() {
		return
	}
	// No paths in the message: it is said once per device, not per engine.
	// Said when the first step starts, so input refused before that gets
	// its one line alone.
	s.warnings = append(s.warnings, fmt.Sprintf("WARNING: --out and the data dir are on the same device %s: the bundle's own writes (a few KB per interval) count in the device figures (wKB, write_amp); they are subtracted from the process figures only. Put --out on another device for exact device figures", s.rd.dev))
}

// noise records what the rest of the host did during the step: the CPU of
// processes outside the measured set and the client, and steal time.
func (s *Sampler) noise(m *results.Metrics) {
	busy, busyWhy := s.total(fHostBusy)
	steal, stealWhy := s.total(fSteal)
	span := s.spanTo.Sub(s.spanFrom).Seconds()
	m.NoiseSpanS = &span
	cores := func(us float64) *float64 {
		if span <= 0 {
			return nil
		}
		x := units.Round(us/1e6/span, 3)
		return &x
	}
	if steal != nil {
		m.StealUs, m.StealCores = toInt(steal), cores(*steal)
	} else {
		m.NullReasons["steal_us"] = stealWhy
	}
	ours := m.CPUUs
	if busy == nil || ours == nil {
		why := busyWhy
		if busy != nil {
			why = "the measured processes' CPU is unknown"
		}
		m.NullReasons["other_cpu_us"] = why
		return
	}
	other := *busy - float64(*ours)
	if s.client == clientSeparate {
		if m.ClientCPUUs == nil {
			m.NullReasons["other_cpu_us"] = "the client's CPU is unknown"
			return
		}
		other -= float64(*m.ClientCPUUs)
	}
	// The sampler's own CPU is rumbench's bookkeeping, not other load.
	if m.SamplerCPUUs != nil {
		other -= float64(*m.SamplerCPUUs)
	}
	// Host and process counters tick apart (10 ms each): never below 0.
	other = math.Max(0, other)
	m.OtherCPUUs, m.OtherCPUCores = toInt(&other), cores(other)
}

// ioNoise records the IO of the processes outside the measured set and
// the client during the step, and warns when it is a real share of the
// device's traffic (results.Metrics.NoisyIO).
func (s *Sampler) ioNoise(m *results.Metrics, step string) {
	or, orWhy := s.total(fOtherRead)
	ow, _ := s.total(fOtherWrite)
	kb := func(v *float64) *float64 {
		if v == nil {
			return nil
		}
		x := units.Round(*v/1024, 1)
		return &x
	}
	if or == nil {
		m.NullReasons["other_proc_rkb"], m.NullReasons["other_proc_wkb"] = orWhy, orWhy
	}
	m.SetIONoise(kb(or), kb(ow))
	if msg := m.NoisyIO(); msg != "" {
		s.log.Printf("WARNING: busy device in step %s: %s; the device figures (wKB, rKB, r per op, write_amp) include their IO", step, msg)
	}
}

// serverDisk is where a server's on-disk footprint is measured: its data
// dir when rumbench manages it (the server's alone, inside the run's data
// dir), else the directory of rumbench's database when the engine names
// one, else nothing, with the reason. db is the opened engine.
func serverDisk(ctx context.Context, db any, serverDir, runDir string) (dir, source, why string) {
	if serverDir != "" && runDir != "" {
		if rel, err := filepath.Rel(runDir, serverDir); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return serverDir, results.DiskServerDataDir, ""
		}
	}
	why = "the server is not this run's alone (one rumbench does not manage, or a sweep's managed server serving many cells): its data dir also holds its other databases and its WAL/redo, so the footprint of rumbench's database alone is unknown"
	if serverDir == "" {
		why = "the server's data dir is unknown (not on this host, or not reported)"
	}
	do, ok := db.(model.DatabaseDirOwner)
	if !ok {
		return "", "", why
	}
	d, err := do.DatabaseDir(ctx)
	if err != nil {
		return "", "", why + "; " + err.Error()
	}
	if d == "" {
		return "", "", why
	}
	if _, err := os.Stat(d); err != nil {
		return "", "", why + fmt.Sprintf("; its database dir %s is not readable here: %v", d, err)
	}
	return d, results.DiskDatabaseDir, ""
}

// isClientField says whether f is one of the client's own CPU counters,
// read apart only when the engine runs in other processes.
func isClientField(f field) bool { return f == fClientCPU || f == fClientUser || f == fClientSys }
