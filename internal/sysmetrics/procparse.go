package sysmetrics

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// Parsers of the few /proc files the sampler reads every interval. They
// take the bytes procBuf returned and allocate nothing: the procfs library
// parses every field with fmt, which cost milliseconds per sample.

var errShortStat = errors.New("unexpected /proc/PID/stat format")

// statFields are what the sampler needs from /proc/PID/stat.
type statFields struct {
	// utime, stime: the process's own user and system CPU (exited
	// threads included); cutime, cstime: its reaped children's (the kernel
	// adds a child's own and reaped children's times when its parent
	// waits for it). USER_HZ ticks.
	utime, stime, cutime, cstime uint64
	// minflt, majflt: the process's page faults (its threads', exited
	// ones included) that needed no IO and that did; cminflt, cmajflt:
	// its reaped children's.
	minflt, cminflt, majflt, cmajflt uint64
	start                            uint64 // starttime, ticks after boot
	rss                              uint64 // resident pages
	state                            byte   // R, S, D, Z (zombie), X (dead), ...
}

// parseStat reads fields 10-13 (minflt, cminflt, majflt, cmajflt), 14-17
// (utime, stime, cutime, cstime), 22
// (starttime) and 24 (rss) of /proc/PID/stat. The command name (field 2) may hold spaces and
// parentheses, so fields are counted from the last ')'.
func parseStat(b []byte) (statFields, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return statFields{}, errShortStat
	}
	var st statFields
	field := 2
	rest := b[i+1:]
	for len(rest) > 0 && field < 24 {
		for len(rest) > 0 && rest[0] == ' ' {
			rest = rest[1:]
		}
		j := bytes.IndexByte(rest, ' ')
		if j < 0 {
			j = len(rest)
		}
		tok := rest[:j]
		rest = rest[j:]
		field++
		switch field {
		case 3:
			if len(tok) > 0 {
				st.state = tok[0]
			}
		case 10, 11, 12, 13, 14, 15, 16, 17, 22, 24:
			v, ok := atou(tok)
			if !ok {
				return statFields{}, fmt.Errorf("%w: field %d is %q", errShortStat, field, tok)
			}
			switch field {
			case 10:
				st.minflt = v
			case 11:
				st.cminflt = v
			case 12:
				st.majflt = v
			case 13:
				st.cmajflt = v
			case 14:
				st.utime = v
			case 15:
				st.stime = v
			case 16:
				st.cutime = v
			case 17:
				st.cstime = v
			case 22:
				st.start = v
			case 24:
				st.rss = v
			}
		}
	}
	if field < 24 {
		return statFields{}, errShortStat
	}
	return st, nil
}

// atou parses a decimal without allocating; a negative number (rss can be
// -1 on odd kernels) reads as 0.
func atou(b []byte) (uint64, bool) {
	if len(b) > 0 && b[0] == '-' {
		_, ok := atou(b[1:])
		return 0, ok
	}
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// valueOf returns the number after "name" at the start of a line in a
// "name: value" file (/proc/PID/status, /proc/PID/io).
func valueOf(b []byte, name string) (uint64, bool) {
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		if len(line) > len(name) && string(line[:len(name)]) == name && line[len(name)] == ':' {
			return atou(bytes.TrimSpace(line[len(name)+1:]))
		}
	}
	return 0, false
}

// parseCS returns voluntary + involuntary context switches from a thread's
// /proc/PID/task/TID/status.
func parseCS(b []byte) (uint64, error) {
	v, ok1 := valueOf(b, "voluntary_ctxt_switches")
	n, ok2 := valueOf(b, "nonvoluntary_ctxt_switches")
	if !ok1 || !ok2 {
		return 0, errors.New("no ctxt_switches lines in status")
	}
	return v + n, nil
}

// ioFields are the storage counters of /proc/PID/io. The kernel counts
// read_bytes when a read is submitted to the block layer, write_bytes when
// a page is dirtied (or a direct write submitted: not when it reaches the
// device, and a page dirtied again before writeback counts again), and
// cancelled_write_bytes when dirty pages are dropped unwritten (a file
// truncated or deleted before writeback).
type ioFields struct{ read, write, cancelled uint64 }

// parseIO reads read_bytes, write_bytes and cancelled_write_bytes.
func parseIO(b []byte) (ioFields, error) {
	r, ok1 := valueOf(b, "read_bytes")
	w, ok2 := valueOf(b, "write_bytes")
	if !ok1 || !ok2 {
		return ioFields{}, errors.New("no read_bytes/write_bytes in io")
	}
	c, _ := valueOf(b, "cancelled_write_bytes")
	return ioFields{read: r, write: w, cancelled: c}, nil
}

// ioTotal sums the io of a set: read_bytes, write_bytes less cancelled
// (netWrite) and cancelled_write_bytes.
type ioTotal struct{ read, write, cancelled uint64 }

func (t *ioTotal) add(f ioFields) {
	t.read += f.read
	t.write += f.netWrite()
	t.cancelled += f.cancelled
}

// netWrite is write_bytes less cancelled_write_bytes: what was dirtied and
// not dropped (never below 0: the two are read at once but summed over
// threads that race).
func (f ioFields) netWrite() uint64 {
	if f.cancelled >= f.write {
		return 0
	}
	return f.write - f.cancelled
}

// appendPids appends the space-separated pids of a children file.
func appendPids(dst []int, b []byte) []int {
	for _, f := range bytes.Fields(b) {
		if v, ok := atou(f); ok {
			dst = append(dst, int(v))
		}
	}
	return dst
}

// hostCPU is the first line of /proc/stat, in USER_HZ ticks.
type hostCPU struct{ busy, steal uint64 }

// parseHostCPU reads "cpu user nice system idle iowait irq softirq steal":
// busy = user+nice+system+irq+softirq (guest time is inside user).
func parseHostCPU(b []byte) (hostCPU, error) {
	j := bytes.IndexByte(b, '\n')
	if j < 0 || !bytes.HasPrefix(b, []byte("cpu ")) {
		return hostCPU{}, errors.New("no cpu line in /proc/stat")
	}
	f := bytes.Fields(b[4:j])
	if len(f) < 7 {
		return hostCPU{}, errors.New("short cpu line in /proc/stat")
	}
	var v [8]uint64
	for i := 0; i < len(v) && i < len(f); i++ {
		x, ok := atou(f[i])
		if !ok {
			return hostCPU{}, fmt.Errorf("bad cpu field %q in /proc/stat", f[i])
		}
		v[i] = x
	}
	return hostCPU{busy: v[0] + v[1] + v[2] + v[5] + v[6], steal: v[7]}, nil
}

// diskLine is one device's counters from /proc/diskstats.
type diskLine struct {
	reads, readSect, writes, writeSect, discards, discardSect uint64
	hasDiscards                                               bool
	// flushes and flushMs: flush requests completed and the time spent on
	// them (Linux 5.5+).
	flushes, flushMs uint64
	hasFlushes       bool
}

// parseDiskstats finds major:minor's line. Fields after the name: reads(1)
// merged sectors(3) ms writes(5) merged sectors(7) ms inflight ms weighted
// discards(12) merged sectors(14) ms (Linux 4.18+) flushes(16) ms(17)
// (Linux 5.5+).
func parseDiskstats(b []byte, major, minor uint32) (diskLine, bool) {
	maj, min := strconv.AppendUint(nil, uint64(major), 10), strconv.AppendUint(nil, uint64(minor), 10)
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		f := bytes.Fields(line)
		if len(f) < 14 || !bytes.Equal(f[0], maj) || !bytes.Equal(f[1], min) {
			continue
		}
		n := func(i int) uint64 { v, _ := atou(f[2+i]); return v }
		d := diskLine{reads: n(1), readSect: n(3), writes: n(5), writeSect: n(7)}
		if len(f) >= 3+14 {
			d.hasDiscards, d.discards, d.discardSect = true, n(12), n(14)
		}
		if len(f) >= 3+17 {
			d.hasFlushes, d.flushes, d.flushMs = true, n(16), n(17)
		}
		return d, true
	}
	return diskLine{}, false
}

// nextLine splits b at its first newline: the line and the rest (nil after
// the last line).
func nextLine(b []byte) (line, rest []byte) {
	if j := bytes.IndexByte(b, '\n'); j >= 0 {
		return b[:j], b[j+1:]
	}
	return b, nil
}
