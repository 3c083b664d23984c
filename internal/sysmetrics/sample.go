package sysmetrics

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// field is one cumulative counter the sampler follows.
type field int

const (
	fCPU            field = iota // measured process set, user+sys, µs
	fCPUUser                     // measured process set, user, µs
	fCPUSys                      // measured process set, sys, µs
	fCS                          // measured process set, voluntary+involuntary context switches
	fProcRead                    // measured process set, /proc/PID/io read_bytes
	fProcWrite                   // measured process set, write_bytes less cancelled_write_bytes
	fProcCancelled               // measured process set, cancelled_write_bytes
	fMinFlt                      // measured process set, minor page faults
	fMajFlt                      // measured process set, major page faults (each needed a read)
	fClientCPU                   // rumbench process, user+sys, µs (server engines)
	fClientUser                  // rumbench process, user, µs (server engines)
	fClientSys                   // rumbench process, sys, µs (server engines)
	fDevReads                    // device reads completed
	fDevReadSect                 // device sectors read (512 B)
	fDevWrites                   // device writes completed
	fDevWriteSect                // device sectors written (512 B)
	fDevDiscards                 // device discards completed
	fDevDiscardSect              // device sectors discarded (512 B)
	fDevFlushes                  // device flush requests completed
	fDevFlushMs                  // device time spent flushing, ms
	fHostBusy                    // whole host, /proc/stat user+nice+system+irq+softirq, µs
	fSteal                       // whole host, /proc/stat steal (the hypervisor's), µs
	fSamplerCPU                  // the sampler's own reads, thread CPU, µs
	fOtherRead                   // every process outside the measured set and rumbench, read_bytes
	fOtherWrite                  // the same, write_bytes less cancelled_write_bytes
	numFields
)

// fieldKeys are the names of the raw deltas in interval records.
var fieldKeys = [numFields]string{
	"cpu_us", "cpu_user_us", "cpu_sys_us", "cs", "proc_read_bytes", "proc_write_bytes", "proc_cancelled_bytes", "minflt", "majflt",
	"client_cpu_us", "client_cpu_user_us", "client_cpu_sys_us",
	"dev_reads", "dev_read_sectors", "dev_writes", "dev_write_sectors",
	"dev_discards", "dev_discard_sectors", "dev_flushes", "dev_flush_ms", "host_busy_us", "steal_us",
	"sampler_cpu_us", "other_read_bytes", "other_write_bytes",
}

// treeFields are totals over the measured process set, taken whole at each
// sample (setCounter.hold): a member that exits hands its counts to its
// parent.
var treeFields = []field{fCPU, fCPUUser, fCPUSys, fProcRead, fProcWrite, fProcCancelled, fMinFlt, fMajFlt}

// processFields are the fields read from the measured processes.
var processFields = []field{fCPU, fCPUUser, fCPUSys, fCS, fProcRead, fProcWrite, fProcCancelled, fMinFlt, fMajFlt}

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
	// partial says why a field that was read leaves something out (the
	// processes whose IO could not be read).
	partial [numFields]error
	// skipped marks a field not due at this sample (per-thread context
	// switches between refreshes): nil without an error.
	skipped [numFields]bool
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
	for _, f := range []field{fDevReads, fDevReadSect, fDevWrites, fDevWriteSect, fDevDiscards, fDevDiscardSect, fDevFlushes, fDevFlushMs} {
		t.c[f].width = kernelWordBits
	}
	for _, f := range append(treeFields, fOtherRead, fOtherWrite) {
		t.c[f].hold = true
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

// Membership and per-thread context switches are re-read on a slower clock
// than the interval's: a process or thread found late still counts in full
// (setCounter), and what a thread that exits did since its last reading is
// lost either way (docs/metrics.md).
const refreshEvery = time.Second

// member is one process of the measured set, with its threads as of the
// last refresh.
type member struct {
	pid  int
	tids []int
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
	// it is read again only after 1000× its last read time has passed.
	pssNext time.Time
	pssLast *uint64
	// unavailable, when set, is why nothing can be read (no /proc).
	unavailable error

	buf procBuf
	// The measured set as of refreshedAt; members are re-found from the
	// root's children files (/proc/PID/task/TID/children), or by scanning
	// every process when the kernel has no such files (scanAll).
	set         []member
	setErr      error
	refreshedAt time.Time
	scanAll     bool
	// sampler is the CPU every read so far took on its own OS thread;
	// clientLast keeps the client's net CPU monotonic.
	sampler    cpuTime
	clientLast cpuTime
	// loop and loopThreadUs are the clock loop (measure.Interval.Loop)
	// of the last read and its thread's CPU when that read ended: the
	// clock's thread CPU from there to the next read of the same loop is
	// the clock's bookkeeping, counted in samplerUs.
	loop       uint64
	loopThread cpuTime
	selfLast   cpuTime
	// exitRaces counts members found exited (or zombies) when read: a
	// server's backend or worker ending between the refresh and the read
	// is expected, so never an error the user sees; its counts since the
	// last sample are lost, as for any member that exits between samples.
	exitRaces int
	// procDir, when set, replaces procRoot (tests of races on a fake /proc).
	procDir string
}

// proc is the /proc directory read: procRoot, or a test's fake one.
func (r *reader) proc() string {
	if r.procDir != "" {
		return r.procDir
	}
	return procRoot
}

// gone says whether pid, whose file could not be read with err, has exited
// or is a zombie since it was listed: the file is gone (ENOENT, ESRCH), or
// its stat says so.
func (r *reader) gone(pid int, err error) bool {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, serr := r.buf.read(r.proc() + "/" + strconv.Itoa(pid) + "/stat")
	if serr != nil {
		return true
	}
	st, perr := parseStat(b)
	return perr != nil || st.state == 'Z' || st.state == 'X'
}

// refresh re-finds the measured set: root and, for a tree, every
// descendant, each with its threads.
func (r *reader) refresh() {
	r.set, r.setErr, r.refreshedAt = r.set[:0], nil, time.Now()
	if !r.tree {
		tids, err := r.threads(r.root)
		if err != nil {
			r.setErr = err
		}
		r.set = append(r.set, member{pid: r.root, tids: tids})
		return
	}
	if !r.scanAll {
		if err := r.walkChildren(); err == nil {
			return
		} else if !errors.Is(err, fs.ErrNotExist) {
			r.setErr = err
			return
		}
		// No children files (a kernel without CONFIG_PROC_CHILDREN):
		// scan every process from now on.
		r.scanAll = true
		r.set = r.set[:0]
	}
	pids, err := r.scanTree()
	if err != nil {
		r.setErr = err
	}
	for _, pid := range pids {
		tids, _ := r.threads(pid)
		r.set = append(r.set, member{pid: pid, tids: tids})
	}
}

// threads lists a process's thread ids.
func (r *reader) threads(pid int) ([]int, error) {
	d, err := os.Open(filepath.Join(r.proc(), strconv.Itoa(pid), "task"))
	if err != nil {
		return nil, fmt.Errorf("list threads of %d: %w", pid, err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list threads of %d: %w", pid, err)
	}
	tids := make([]int, 0, len(names))
	for _, n := range names {
		if t, err := strconv.Atoi(n); err == nil {
			tids = append(tids, t)
		}
	}
	sort.Ints(tids)
	return tids, nil
}

// walkChildren finds the tree from each thread's children file (a child
// is listed under the thread that forked it). ErrNotExist from the root's
// first file means the kernel has none.
func (r *reader) walkChildren() error {
	queue := []int{r.root}
	seen := map[int]bool{r.root: true}
	var kids []int
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		tids, err := r.threads(pid)
		if err != nil {
			if pid == r.root {
				return err
			}
			continue // exited while walking
		}
		r.set = append(r.set, member{pid: pid, tids: tids})
		for _, tid := range tids {
			b, err := r.buf.read(r.proc() + "/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(tid) + "/children")
			if err != nil {
				if pid == r.root && errors.Is(err, fs.ErrNotExist) && len(r.set) == 1 {
					if _, serr := os.Stat(filepath.Join(r.proc(), strconv.Itoa(pid), "task", strconv.Itoa(tid))); serr == nil {
						return err // the thread exists, its children file does not
					}
				}
				continue
			}
			kids = appendPids(kids[:0], b)
			sort.Ints(kids)
			for _, k := range kids {
				if !seen[k] {
					seen[k] = true
					queue = append(queue, k)
				}
			}
		}
	}
	return nil
}

// scanTree returns root and every process whose parent chain leads to it,
// parents found from every /proc/*/stat: the fallback for kernels without
// children files, costly on a host with many processes.
func (r *reader) scanTree() ([]int, error) {
	all, err := r.fs.AllProcs()
	if err != nil {
		return []int{r.root}, fmt.Errorf("list processes: %w", err)
	}
	children := map[int][]int{}
	for _, p := range all {
		s, err := p.Stat()
		if err != nil {
			continue // exited while listing
		}
		children[s.PPID] = append(children[s.PPID], p.PID)
	}
	out := []int{r.root}
	queue := append([]int(nil), children[r.root]...)
	sort.Ints(queue)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if pid == r.root {
			continue
		}
		out = append(out, pid)
		queue = append(queue, children[pid]...)
	}
	return out, nil
}

// read takes one sample. full re-finds the measured set, reads every
// thread's context switches and the IO of every other process (step
// boundaries, warm-up); otherwise context switches are read when
// refreshEvery has passed. withPSS forces a PSS read regardless of its
// cost. The read runs on its own locked OS thread, whose CPU time is the
// sampler's (sampler_cpu_us), kept out of rumbench's process CPU. loop,
// when not 0, is the ticking clock whose locked thread calls read
// (measure.Interval.Loop): that thread's CPU since the same loop's last
// read (the clock's merging, encoding and logging) counts as well.
func (r *reader) read(full, withPSS bool, loop uint64) *reading {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, terr := threadCPU()
	if terr == nil && loop != 0 && loop == r.loop && t0.user >= r.loopThread.user && t0.sys >= r.loopThread.sys {
		r.sampler.user += t0.user - r.loopThread.user
		r.sampler.sys += t0.sys - r.loopThread.sys
	}
	r.loop = 0
	defer func() {
		if loop != 0 && terr == nil {
			if t, err := threadCPU(); err == nil {
				r.loop, r.loopThread = loop, t
			}
		}
	}()
	rd := &reading{at: time.Now()}
	if r.unavailable != nil {
		for f := range rd.errs {
			rd.errs[f] = r.unavailable
		}
		rd.pssErr = r.unavailable
		return rd
	}
	spent := func() cpuTime {
		t, err := threadCPU()
		if err != nil || terr != nil || t.user < t0.user || t.sys < t0.sys {
			return r.sampler
		}
		return cpuTime{user: r.sampler.user + t.user - t0.user, sys: r.sampler.sys + t.sys - t0.sys}
	}
	var live []int
	if r.root > 0 {
		live = r.readProcs(rd, full, withPSS, spent)
	} else {
		for _, f := range processFields {
			rd.errs[f] = errNoProcess
		}
		rd.pssErr = errNoProcess
	}
	if full {
		r.readOthers(rd, live)
	} else {
		rd.skipped[fOtherRead], rd.skipped[fOtherWrite] = true, true
	}
	r.readDevice(rd)
	r.readHost(rd)
	var selfCPU cpuTime
	var serr error
	if r.client > 0 {
		selfCPU, _, serr = selfUsage()
	}
	r.sampler = spent()
	if terr != nil {
		rd.errs[fSamplerCPU] = terr
	} else {
		rd.vals[fSamplerCPU] = one(r.sampler.total())
	}
	switch {
	case r.client <= 0:
		for _, f := range []field{fClientCPU, fClientUser, fClientSys} {
			rd.errs[f] = errClientShared
		}
	case serr != nil:
		for _, f := range []field{fClientCPU, fClientUser, fClientSys} {
			rd.errs[f] = serr
		}
	default:
		c := r.net(selfCPU, r.sampler, &r.clientLast)
		rd.vals[fClientCPU], rd.vals[fClientUser], rd.vals[fClientSys] = one(c.total()), one(c.user), one(c.sys)
	}
	return rd
}

// one is a reading of a single counter (the device, a total).
func one(v uint64) map[key]uint64 { return map[key]uint64{{}: v} }

// net is rumbench's process CPU less the sampler's, user and sys apart,
// never going down (the two clocks are read a few µs apart).
func (r *reader) net(cpu, sampler cpuTime, last *cpuTime) cpuTime {
	v := *last
	if cpu.user > sampler.user && cpu.user-sampler.user > v.user {
		v.user = cpu.user - sampler.user
	}
	if cpu.sys > sampler.sys && cpu.sys-sampler.sys > v.sys {
		v.sys = cpu.sys - sampler.sys
	}
	*last = v
	return v
}

// readHost reads the whole host's CPU time from /proc/stat: what every
// process used (busy) and what the hypervisor gave other guests (steal).
// Busy includes guest time (the kernel counts it in user).
func (r *reader) readHost(rd *reading) {
	b, err := r.buf.read(r.proc() + "/stat")
	var h hostCPU
	if err == nil {
		h, err = parseHostCPU(b)
	}
	if err != nil {
		rd.errs[fHostBusy] = fmt.Errorf("read /proc/stat: %w", err)
		rd.errs[fSteal] = rd.errs[fHostBusy]
		return
	}
	rd.vals[fHostBusy] = one(h.busy * usPerTick)
	rd.vals[fSteal] = one(h.steal * usPerTick)
}

var (
	errNoProcess    = fmt.Errorf("the engine's process is unknown (the server engine gave no pid)")
	errClientShared = fmt.Errorf("not separable: the client runs in the engine's process")
)

// readProcs reads the measured set's counters and returns its live
// members. CPU and IO are the tree's totals (treeFields): the live
// members' own counters plus, for CPU, what their reaped children used
// (cutime, cstime). The kernel adds a child's CPU to its parent's cutime
// and cstime, and its IO to its parent's /proc/PID/io, when the parent
// reaps it: a server's backend or parallel worker that lives between two
// samples is counted, and one that exits is not counted twice (once alive,
// again in its parent); an exited child not yet reaped (a zombie) counts
// with what its parent will gain. Members are read root first, so a child
// reaped while the set is read is missed for one sample (the total dips,
// then recovers: setCounter.hold), never counted twice.
func (r *reader) readProcs(rd *reading, full, withPSS bool, spent func() cpuTime) []int {
	now := time.Now()
	csDue := full || len(r.set) == 0 || now.Sub(r.refreshedAt) >= refreshEvery
	if csDue {
		r.refresh()
	}
	rd.memberErr = r.setErr
	self := os.Getpid()
	var cpu cpuTime
	var io ioTotal
	var minflt, majflt uint64
	ioRead := false
	cs, csAlive := map[key]uint64{}, map[key]bool{}
	var rssLargest uint64
	pageSize := uint64(os.Getpagesize())
	var live []int
	for _, m := range r.set {
		dir := r.proc() + "/" + strconv.Itoa(m.pid)
		b, err := r.buf.read(dir + "/stat")
		var st statFields
		if err == nil {
			st, err = parseStat(b)
		}
		if err != nil {
			if m.pid == r.root {
				rd.memberErr = fmt.Errorf("read /proc/%d/stat: %w", m.pid, err)
				break
			}
			r.exitRaces++
			continue // exited since the refresh
		}
		iob, ioErr := r.buf.read(dir + "/io")
		if m.pid != r.root && (st.state == 'Z' || st.state == 'X') {
			// Exited, not yet reaped: its stat and io hold exactly what
			// its parent's cutime, cstime and io will gain when it
			// reaps it, so it counts until then (no dip in the total).
			// It has no threads or memory left.
			if f, err := parseIO(iob); ioErr == nil && err == nil {
				io.add(f)
			}
			minflt += st.minflt + st.cminflt
			majflt += st.majflt + st.cmajflt
			cpu.user += (st.utime + st.cutime) * usPerTick
			cpu.sys += (st.stime + st.cstime) * usPerTick
			continue
		}
		if ioErr != nil && m.pid != r.root && r.gone(m.pid, ioErr) {
			r.exitRaces++
			continue // exited between its stat and its io
		}
		live = append(live, m.pid)
		minflt += st.minflt + st.cminflt
		majflt += st.majflt + st.cmajflt
		if rss := st.rss * pageSize; rss > rssLargest {
			rssLargest = rss
		}
		if ioErr != nil {
			rd.errs[fProcRead] = fmt.Errorf("read /proc/%d/io: %w", m.pid, ioErr)
		} else if f, err := parseIO(iob); err != nil {
			rd.errs[fProcRead] = fmt.Errorf("read /proc/%d/io: %w", m.pid, err)
		} else {
			io.add(f)
			ioRead = true
		}
		if m.pid == self {
			// rumbench itself: exact CPU and context switches from
			// getrusage (exited threads included), less the sampler's.
			if c, n, err := selfUsage(); err == nil {
				c = r.net(c, spent(), &r.selfLast)
				cpu.user += c.user
				cpu.sys += c.sys
				k := key{pid: m.pid, start: st.start}
				cs[k], csAlive[k] = n, true
				continue
			}
		}
		cpu.user += (st.utime + st.cutime) * usPerTick
		cpu.sys += (st.stime + st.cstime) * usPerTick
		if !csDue {
			continue
		}
		// Context switches in /proc/PID/status are the main thread's
		// only, so they are summed over the threads.
		for _, tid := range m.tids {
			tk := key{pid: m.pid, tid: tid, start: st.start}
			csAlive[tk] = true
			b, err := r.buf.read(dir + "/task/" + strconv.Itoa(tid) + "/status")
			if err != nil {
				continue // exited since the refresh
			}
			if n, err := parseCS(b); err == nil {
				cs[tk] = n
			}
		}
	}
	if len(live) == 0 {
		err := rd.memberErr
		if err == nil {
			err = fmt.Errorf("process %d is gone", r.root)
		}
		for _, f := range processFields {
			rd.errs[f] = err
		}
		rd.pssErr = err
		return nil
	}
	rd.members = len(live)
	rd.vals[fCPU], rd.vals[fCPUUser], rd.vals[fCPUSys] = one(cpu.total()), one(cpu.user), one(cpu.sys)
	rd.vals[fMinFlt], rd.vals[fMajFlt] = one(minflt), one(majflt)
	if rd.errs[fProcRead] != nil {
		rd.errs[fProcWrite], rd.errs[fProcCancelled] = rd.errs[fProcRead], rd.errs[fProcRead]
	}
	if ioRead {
		rd.vals[fProcRead], rd.vals[fProcWrite], rd.vals[fProcCancelled] = one(io.read), one(io.write), one(io.cancelled)
	}
	switch {
	case len(cs) > 0:
		rd.vals[fCS], rd.alive[fCS] = cs, csAlive
	case !csDue:
		rd.skipped[fCS] = true
	default:
		rd.errs[fCS] = fmt.Errorf("no thread status readable")
	}
	rd.rssLargest = &rssLargest

	if !withPSS && now.Before(r.pssNext) {
		rd.pss = r.pssLast
		return live
	}
	var pss uint64
	for _, pid := range live {
		p, err := r.fs.Proc(pid)
		var sm procfs.ProcSMapsRollup
		if err == nil {
			sm, err = p.ProcSMapsRollup()
		}
		if err != nil {
			if pid != r.root && r.gone(pid, err) {
				// Exited since its stat (a server's backend whose
				// connection closed at the step's end): its memory is
				// freed, not unknown.
				r.exitRaces++
				continue
			}
			rd.pssErr = fmt.Errorf("read /proc/%d/smaps_rollup: %w", pid, err)
			r.pssLast = nil
			return live
		}
		pss += sm.Pss
	}
	cost := time.Since(now)
	r.pssNext = now.Add(1000 * cost)
	rd.pss, r.pssLast = &pss, &pss
	return live
}

// readOthers totals the storage IO of every process on the host outside
// the measured set (live) and rumbench itself: what else used the device
// during a step. A process that exits hands its IO to its parent when
// reaped, so the total over every process follows the host's IO whoever
// ends; a process reaped without a wait (its parent ignores SIGCHLD)
// takes its IO with it, so the total is a lower bound. Reading every
// process costs about a millisecond per hundred: full samples only.
func (r *reader) readOthers(rd *reading, live []int) {
	fail := func(err error) { rd.errs[fOtherRead], rd.errs[fOtherWrite] = err, err }
	d, err := os.Open(r.proc())
	if err != nil {
		fail(fmt.Errorf("list processes: %w", err))
		return
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		fail(fmt.Errorf("list processes: %w", err))
		return
	}
	ours := make(map[int]bool, len(live)+1)
	for _, pid := range live {
		ours[pid] = true
	}
	ours[os.Getpid()] = true
	var io ioTotal
	var denied []string
	for _, n := range names {
		pid, ok := atou([]byte(n))
		if !ok || ours[int(pid)] {
			continue
		}
		b, err := r.buf.read(r.proc() + "/" + n + "/io")
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				denied = append(denied, n)
			}
			continue // exited while listed
		}
		if f, err := parseIO(b); err == nil {
			io.add(f)
		}
	}
	rd.vals[fOtherRead], rd.vals[fOtherWrite] = one(io.read), one(io.write)
	if len(denied) > 0 {
		// Said once per distinct set, so name the processes, not a count
		// that changes.
		if len(denied) > 3 {
			denied = append(denied[:3], "...")
		}
		err := fmt.Errorf("other processes' IO (other_proc_rkb, other_proc_wkb) leaves out those whose /proc/PID/io this user may not read (pid %s; it needs root with CAP_SYS_PTRACE, or the same user)", strings.Join(denied, ", "))
		rd.partial[fOtherRead], rd.partial[fOtherWrite] = err, err
	}
}

func (r *reader) readDevice(rd *reading) {
	devFields := []field{fDevReads, fDevReadSect, fDevWrites, fDevWriteSect, fDevDiscards, fDevDiscardSect, fDevFlushes, fDevFlushMs}
	fail := func(err error) {
		for _, f := range devFields {
			rd.errs[f] = err
		}
	}
	if r.dev == nil || r.bfs == nil {
		fail(errNoDevice)
		return
	}
	b, err := r.buf.read(r.proc() + "/diskstats")
	if err != nil {
		fail(fmt.Errorf("read /proc/diskstats: %w", err))
		return
	}
	s, ok := parseDiskstats(b, r.dev.Major, r.dev.Minor)
	if !ok {
		fail(fmt.Errorf("device %s (%d:%d) is not in /proc/diskstats", r.dev.Name, r.dev.Major, r.dev.Minor))
		return
	}
	rd.vals[fDevReads], rd.vals[fDevReadSect] = one(s.reads), one(s.readSect)
	rd.vals[fDevWrites], rd.vals[fDevWriteSect] = one(s.writes), one(s.writeSect)
	// Discard columns exist since Linux 4.18.
	if s.hasDiscards {
		rd.vals[fDevDiscards], rd.vals[fDevDiscardSect] = one(s.discards), one(s.discardSect)
	} else {
		rd.errs[fDevDiscards] = fmt.Errorf("kernel reports no discard counters in /proc/diskstats (before Linux 4.18, which counts discards as writes: dev_wkb may include them)")
		rd.errs[fDevDiscardSect] = rd.errs[fDevDiscards]
	}
	if s.hasFlushes {
		rd.vals[fDevFlushes], rd.vals[fDevFlushMs] = one(s.flushes), one(s.flushMs)
	} else {
		rd.errs[fDevFlushes] = fmt.Errorf("kernel reports no flush counters in /proc/diskstats (before Linux 5.5)")
		rd.errs[fDevFlushMs] = rd.errs[fDevFlushes]
	}
}

var errNoDevice = fmt.Errorf("the data dir's block device could not be resolved")
