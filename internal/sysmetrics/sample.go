package sysmetrics

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"sort"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// field is one cumulative counter the sampler follows.
type field int

const (
	fCPU            field = iota // measured process set, user+sys, µs
	fCS                          // measured process set, voluntary+involuntary context switches
	fProcRead                    // measured process set, /proc/PID/io read_bytes
	fProcWrite                   // measured process set, /proc/PID/io write_bytes
	fClientCPU                   // rumbench process, user+sys, µs (server engines)
	fDevReads                    // device reads completed
	fDevReadSect                 // device sectors read (512 B)
	fDevWrites                   // device writes completed
	fDevWriteSect                // device sectors written (512 B)
	fDevDiscards                 // device discards completed
	fDevDiscardSect              // device sectors discarded (512 B)
	fHostBusy                    // whole host, /proc/stat user+nice+system+irq+softirq, µs
	fSteal                       // whole host, /proc/stat steal (the hypervisor's), µs
	numFields
)

// fieldKeys are the names of the raw deltas in interval records.
var fieldKeys = [numFields]string{
	"cpu_us", "cs", "proc_read_bytes", "proc_write_bytes", "client_cpu_us",
	"dev_reads", "dev_read_sectors", "dev_writes", "dev_write_sectors",
	"dev_discards", "dev_discard_sectors", "host_busy_us", "steal_us",
}

// userHZ is the unit of utime/stime in /proc/PID/stat: USER_HZ is 100 on
// every Linux architecture Go supports (procfs assumes the same).
const userHZ = 100

const usPerTick = 1_000_000 / userHZ

// reading is one raw sample of every counter; a nil map means the counter
// could not be read at all in this sample.
type reading struct {
	at    time.Time
	vals  [numFields]map[key]uint64
	alive [numFields]map[key]bool
	// errs says why a field is nil (or partial: some members unreadable).
	errs [numFields]error
	// Memory levels (not counters): PSS summed over the set, and the RSS of
	// the largest member as the fallback.
	pss        *uint64
	pssErr     error
	rssLargest *uint64
	members    int
	memberErr  error
}

// Deltas are the counter increments between two samples. OK is false for a
// counter that was missing in either sample.
type Deltas struct {
	V  [numFields]uint64
	OK [numFields]bool
}

// tracker turns readings into deltas, one setCounter per field.
type tracker struct{ c [numFields]setCounter }

func newTracker() *tracker {
	t := &tracker{}
	for f := range t.c {
		t.c[f].width = 64
	}
	for _, f := range []field{fDevReads, fDevReadSect, fDevWrites, fDevWriteSect, fDevDiscards, fDevDiscardSect} {
		t.c[f].width = kernelWordBits
	}
	return t
}

func (t *tracker) observe(r *reading) Deltas {
	var d Deltas
	for f := range t.c {
		d.V[f], d.OK[f] = t.c[f].observe(r.vals[f], r.alive[f])
	}
	return d
}

func (t *tracker) reset() {
	for f := range t.c {
		t.c[f].reset()
	}
}

// reader reads the counters of a measured process set and a device.
type reader struct {
	fs  procfs.FS
	bfs *blockdevice.FS
	// root is the pid whose process tree is measured; tree is false when
	// only root itself is (embedded engines: rumbench's own pid).
	root int
	tree bool
	// client is rumbench's pid when its CPU is read separately (servers).
	client int
	dev    *Device
	// pssEvery bounds the cost of smaps_rollup, which walks page tables:
	// it is read again only after 100× its last read time has passed.
	pssNext time.Time
	pssLast *uint64
	// unavailable, when set, is why nothing can be read (no /proc).
	unavailable error
	// exitRaces counts reads that failed because the process had exited
	// since it was listed (a server's backend or worker ending): expected,
	// so never an error; the process's counts since the last sample are
	// lost, as for any member that exits between samples.
	exitRaces int
}

// exited reports whether err, from reading member p, came from p having
// exited (or become a zombie) since it was listed, and counts it.
func (r *reader) exited(p procfs.Proc, err error) bool {
	gone := errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
	if !gone {
		st, serr := p.Stat()
		gone = serr != nil || st.State == "Z" || st.State == "X"
	}
	if gone {
		r.exitRaces++
	}
	return gone
}

// members returns the measured processes: root and, for a tree, every
// process whose parent chain leads to root (parents found from /proc/*/stat).
func (r *reader) members() ([]procfs.Proc, []procfs.ProcStat, error) {
	rootProc, err := r.fs.Proc(r.root)
	if err != nil {
		return nil, nil, fmt.Errorf("process %d: %w", r.root, err)
	}
	rootStat, err := rootProc.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("read /proc/%d/stat: %w", r.root, err)
	}
	procs, stats := []procfs.Proc{rootProc}, []procfs.ProcStat{rootStat}
	if !r.tree {
		return procs, stats, nil
	}
	all, err := r.fs.AllProcs()
	if err != nil {
		return procs, stats, fmt.Errorf("list processes: %w", err)
	}
	children := map[int][]int{}
	byPid := map[int]struct {
		p procfs.Proc
		s procfs.ProcStat
	}{}
	for _, p := range all {
		s, err := p.Stat()
		if err != nil {
			continue // exited while listing
		}
		children[s.PPID] = append(children[s.PPID], p.PID)
		byPid[p.PID] = struct {
			p procfs.Proc
			s procfs.ProcStat
		}{p, s}
	}
	queue := append([]int(nil), children[r.root]...)
	sort.Ints(queue)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		e, ok := byPid[pid]
		if !ok || pid == r.root {
			continue
		}
		procs, stats = append(procs, e.p), append(stats, e.s)
		queue = append(queue, children[pid]...)
	}
	return procs, stats, nil
}

// read takes one sample. withPSS forces a PSS read regardless of its cost.
func (r *reader) read(withPSS bool) *reading {
	rd := &reading{at: time.Now()}
	if r.unavailable != nil {
		for f := range rd.errs {
			rd.errs[f] = r.unavailable
		}
		rd.pssErr = r.unavailable
		return rd
	}
	if r.root > 0 {
		r.readProcs(rd, withPSS)
	} else {
		for _, f := range []field{fCPU, fCS, fProcRead, fProcWrite} {
			rd.errs[f] = errNoProcess
		}
		rd.pssErr = errNoProcess
	}
	if r.client > 0 {
		rd.vals[fClientCPU], rd.errs[fClientCPU] = r.cpuOf(r.client)
	} else {
		rd.errs[fClientCPU] = errClientShared
	}
	r.readDevice(rd)
	r.readHost(rd)
	return rd
}

// readHost reads the whole host's CPU time from /proc/stat: what every
// process used (busy) and what the hypervisor gave other guests (steal).
// Busy includes guest time (the kernel counts it in user).
func (r *reader) readHost(rd *reading) {
	st, err := r.fs.Stat()
	if err != nil {
		rd.errs[fHostBusy] = fmt.Errorf("read /proc/stat: %w", err)
		rd.errs[fSteal] = rd.errs[fHostBusy]
		return
	}
	c := st.CPUTotal
	us := func(secs float64) map[key]uint64 { return map[key]uint64{{}: uint64(math.Round(secs * 1e6))} }
	rd.vals[fHostBusy] = us(c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ)
	rd.vals[fSteal] = us(c.Steal)
}

var (
	errNoProcess    = fmt.Errorf("the engine's process is unknown (the server engine gave no pid)")
	errClientShared = fmt.Errorf("not separable: the client runs in the engine's process")
)

func (r *reader) cpuOf(pid int) (map[key]uint64, error) {
	p, err := r.fs.Proc(pid)
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	s, err := p.Stat()
	if err != nil {
		return nil, fmt.Errorf("read /proc/%d/stat: %w", pid, err)
	}
	return map[key]uint64{{pid: pid, start: s.Starttime}: uint64(s.UTime+s.STime) * usPerTick}, nil
}

func (r *reader) readProcs(rd *reading, withPSS bool) {
	procs, stats, err := r.members()
	rd.memberErr = err
	if len(procs) == 0 {
		for _, f := range []field{fCPU, fCS, fProcRead, fProcWrite} {
			rd.errs[f] = err
		}
		rd.pssErr = err
		return
	}
	rd.members = len(procs)
	cpu := map[key]uint64{}
	rb, wb := map[key]uint64{}, map[key]uint64{}
	cs, csAlive := map[key]uint64{}, map[key]bool{}
	alive := map[key]bool{}
	var rssLargest uint64
	pageSize := uint64(os.Getpagesize())
	for i, p := range procs {
		s := stats[i]
		k := key{pid: p.PID, start: s.Starttime}
		alive[k] = true
		cpu[k] = uint64(s.UTime+s.STime) * usPerTick
		if rss := uint64(s.RSS) * pageSize; rss > rssLargest {
			rssLargest = rss
		}
		if io, err := p.IO(); err == nil {
			rb[k], wb[k] = io.ReadBytes, io.WriteBytes
		} else if r.exited(p, err) {
			// It lost its count since the last sample, as any member
			// that exits between samples does.
			delete(alive, k)
			continue
		} else {
			rd.errs[fProcRead] = fmt.Errorf("read /proc/%d/io: %w", p.PID, err)
			rd.errs[fProcWrite] = rd.errs[fProcRead]
		}
		// Context switches in /proc/PID/status are the main thread's
		// only, so they are summed over the threads in /proc/PID/task.
		threads, err := r.fs.AllThreads(p.PID)
		if err != nil {
			if !r.exited(p, err) {
				rd.errs[fCS] = fmt.Errorf("list threads of %d: %w", p.PID, err)
			}
			continue
		}
		for _, t := range threads {
			tk := key{pid: p.PID, tid: t.PID, start: s.Starttime}
			csAlive[tk] = true
			st, err := t.NewStatus()
			if err != nil {
				continue // exited while listing
			}
			cs[tk] = st.VoluntaryCtxtSwitches + st.NonVoluntaryCtxtSwitches
		}
	}
	rd.vals[fCPU], rd.alive[fCPU] = cpu, alive
	rd.alive[fProcRead], rd.alive[fProcWrite] = alive, alive
	if len(rb) > 0 {
		rd.vals[fProcRead], rd.vals[fProcWrite] = rb, wb
	}
	if len(cs) > 0 {
		rd.vals[fCS], rd.alive[fCS] = cs, csAlive
	} else if rd.errs[fCS] == nil {
		rd.errs[fCS] = fmt.Errorf("no thread status readable")
	}
	rd.rssLargest = &rssLargest

	now := time.Now()
	if !withPSS && now.Before(r.pssNext) {
		rd.pss = r.pssLast
		return
	}
	var pss uint64
	for _, p := range procs {
		sm, err := p.ProcSMapsRollup()
		if err != nil {
			rd.pssErr = fmt.Errorf("read /proc/%d/smaps_rollup: %w", p.PID, err)
			r.pssLast = nil
			return
		}
		pss += sm.Pss
	}
	cost := time.Since(now)
	r.pssNext = now.Add(100 * cost)
	rd.pss, r.pssLast = &pss, &pss
}

func (r *reader) readDevice(rd *reading) {
	devFields := []field{fDevReads, fDevReadSect, fDevWrites, fDevWriteSect, fDevDiscards, fDevDiscardSect}
	fail := func(err error) {
		for _, f := range devFields {
			rd.errs[f] = err
		}
	}
	if r.dev == nil || r.bfs == nil {
		fail(errNoDevice)
		return
	}
	stats, err := r.bfs.ProcDiskstats()
	if err != nil {
		fail(fmt.Errorf("read /proc/diskstats: %w", err))
		return
	}
	for _, s := range stats {
		if s.MajorNumber != r.dev.Major || s.MinorNumber != r.dev.Minor {
			continue
		}
		one := func(v uint64) map[key]uint64 { return map[key]uint64{{}: v} }
		rd.vals[fDevReads], rd.vals[fDevReadSect] = one(s.ReadIOs), one(s.ReadSectors)
		rd.vals[fDevWrites], rd.vals[fDevWriteSect] = one(s.WriteIOs), one(s.WriteSectors)
		// Discard columns exist since Linux 4.18 (18+ fields).
		if s.IoStatsCount >= 18 {
			rd.vals[fDevDiscards], rd.vals[fDevDiscardSect] = one(s.DiscardIOs), one(s.DiscardSectors)
		} else {
			rd.errs[fDevDiscards] = fmt.Errorf("kernel reports no discard counters in /proc/diskstats (before Linux 4.18, which counts discards as writes: dev_wkb may include them)")
			rd.errs[fDevDiscardSect] = rd.errs[fDevDiscards]
		}
		return
	}
	fail(fmt.Errorf("device %s (%d:%d) is not in /proc/diskstats", r.dev.Name, r.dev.Major, r.dev.Minor))
}

var errNoDevice = fmt.Errorf("the data dir's block device could not be resolved")
