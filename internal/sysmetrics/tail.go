package sysmetrics

import (
	"os"
	"time"

	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/units"
)

// The end-of-step flush of the engine's own files, and the run's tail:
// what the engine writes after its last step (docs/metrics.md, When
// samples are taken).

// endFlush is what the end-of-step flush did.
type endFlush struct {
	scope   string
	seconds float64
	wkb     float64
	wkbOK   bool
}

// Scopes of the end-of-step flush (results.Metrics.EndFlushScope).
const (
	flushEngineFiles = "engine files"
	flushFilesystem  = "filesystem"
)

// flush writes the engine's dirty pages: every file under the data dir,
// written back one by one (syncFiles), so other processes' dirty pages on
// the same filesystem are not written (and charged) with them. When the files
// cannot be opened (another user's server files) the data dir's whole
// filesystem is flushed instead, and said once.
func (s *Sampler) flush() (scope string, err error) {
	if !s.filesystemFlush {
		if _, err := syncFiles(s.dataDir); err == nil {
			return flushEngineFiles, nil
		} else {
			s.filesystemFlush = true
			s.log.Printf("cannot flush the engine's files one by one (%v): the end-of-step flush syncs the data dir's whole filesystem, other processes' dirty pages on it included", err)
		}
	}
	return flushFilesystem, SyncFilesystem(s.dataDir)
}

var _ runner.TailObserver = (*Sampler)(nil)

// TailStart implements runner.TailObserver: the baseline of the run's
// tail, taken when the last step has ended.
func (s *Sampler) TailStart() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tr.reset()
	s.totals, s.have, s.lastOK, s.errs = [numFields]uint64{}, [numFields]bool{}, [numFields]bool{}, [numFields]error{}
	s.spanFrom = time.Time{}
	s.observe(s.rd.read(true, false, 0))
}

// TailEnd implements runner.TailObserver: once the engine is closed (and a
// managed server stopped), its files are flushed as at a step's end and
// what the tail wrote is returned.
func (s *Sampler) TailEnd() *results.Tail {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rd.dev != nil && s.dataDir != "" {
		if _, err := os.Stat(s.dataDir); err == nil {
			if _, err := s.flush(); err != nil {
				s.log.Printf("cannot flush the data dir after the last step (%v): the run's tail may miss writes still buffered", err)
			}
		}
	}
	s.observe(s.rd.read(true, false, 0))
	t := &results.Tail{Seconds: units.Round(s.spanTo.Sub(s.spanFrom).Seconds(), 3), NullReasons: map[string]string{}}
	kb := func(f field, name string, perUnit float64) *float64 {
		v, why := s.total(f)
		if v == nil {
			t.NullReasons[name] = why
			return nil
		}
		x := units.Round(*v*perUnit/1024, 1)
		return &x
	}
	count := func(f field, name string) *int64 {
		v, why := s.total(f)
		if v == nil {
			t.NullReasons[name] = why
		}
		return toInt(v)
	}
	t.DevWKB, t.DevWrites, t.DevFlushes = kb(fDevWriteSect, "dev_wkb", 512), count(fDevWrites, "dev_writes"), count(fDevFlushes, "dev_flushes")
	if s.rd.dev == nil && s.devErr != nil {
		t.NullReasons["dev_wkb"], t.NullReasons["dev_writes"] = s.devErr.Error(), s.devErr.Error()
	}
	t.ProcWKB, t.CPUUs = kb(fProcWrite, "proc_wkb", 1), count(fCPU, "cpu_us")
	if len(t.NullReasons) == 0 {
		t.NullReasons = nil
	}
	return t
}
