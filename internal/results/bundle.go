package results

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"rumbench/internal/diskfull"
	"rumbench/internal/measure"
	"rumbench/internal/units"
)

// File names inside a bundle directory.
const (
	RunFile       = "run.json"
	StepsDir      = "steps"
	IntervalsFile = "intervals.jsonl"
)

// WriteCheckPrefix begins the name of the file a run creates and removes at
// once in --out (or the nearest directory above it) to learn that it may
// write there.
const WriteCheckPrefix = ".rumbench-write-check"

// Writer writes one engine's bundle.
type Writer struct {
	dir string

	mu        sync.Mutex
	intervals *os.File
	iw        *bufio.Writer
	// written counts the bytes the writer wrote, so the measured process
	// figures can leave out the benchmark's own bookkeeping.
	written atomic.Int64
}

// BytesWritten is how many bytes the writer has written so far (interval
// log, run.json and step files).
func (w *Writer) BytesWritten() int64 { return w.written.Load() }

// Create makes the bundle directory dir, refusing one that already holds a
// bundle so nothing is overwritten.
func Create(dir string) (*Writer, error) {
	if _, err := os.Stat(filepath.Join(dir, RunFile)); err == nil {
		return nil, fmt.Errorf("%s already holds a run bundle: choose another --out", dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, StepsDir), 0o755); err != nil {
		return nil, fmt.Errorf("create bundle dir: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, IntervalsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create interval log: %w", err)
	}
	return &Writer{dir: dir, intervals: f, iw: bufio.NewWriter(f)}, nil
}

// Dir is the bundle directory.
func (w *Writer) Dir() string { return w.dir }

// WriteRun writes run.json atomically.
func (w *Writer) WriteRun(r *Run) error {
	n, err := writeJSONAtomic(filepath.Join(w.dir, RunFile), r)
	w.written.Add(n)
	return err
}

// WriteStep writes steps/<step>.json atomically.
func (w *Writer) WriteStep(s *Step) error {
	n, err := writeJSONAtomic(filepath.Join(w.dir, StepsDir, s.Step+".json"), s)
	w.written.Add(n)
	return err
}

// SetMemoryLimit records m as run.json's memory_limit in the bundle in dir,
// leaving every other field as written: the parent of an engine's child
// process adds what the cgroup used once the child has exited.
func SetMemoryLimit(dir string, m *MemoryCgroup) error {
	path := filepath.Join(dir, RunFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode memory_limit: %w", err)
	}
	fields["memory_limit"] = b
	_, err = writeJSONAtomic(path, fields)
	return err
}

// AppendInterval appends one record to intervals.jsonl and flushes it, so a
// crash loses at most the line being written.
func (w *Writer) AppendInterval(rec *IntervalRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode interval: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.iw.Write(b)
	w.iw.WriteByte('\n')
	w.written.Add(int64(len(b)) + 1)
	if err := w.iw.Flush(); err != nil {
		// A failed flush keeps its bytes buffered and fails every later
		// write: start over, so the log holds whole lines only.
		w.iw.Reset(w.intervals)
		return diskfull.Explain(fmt.Errorf("write interval log: %w", err), "--out", w.dir)
	}
	return nil
}

// Close flushes and closes the interval log.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.intervals == nil {
		return nil
	}
	err := w.iw.Flush()
	if cerr := w.intervals.Close(); err == nil {
		err = cerr
	}
	w.intervals = nil
	return err
}

// writeJSONAtomic writes v to path through a synced temp file and a rename,
// so readers see the old file or the new one, never half of one.
func writeJSONAtomic(path string, v any) (int64, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return 0, fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	b = append(b, '\n')
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return 0, diskfull.Explain(fmt.Errorf("write %s: %w", path, err), "--out", filepath.Dir(path))
	}
	n, werr := tmp.Write(b)
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return int64(n), diskfull.Explain(fmt.Errorf("write %s: %w", path, werr), "--out", filepath.Dir(path))
	}
	return int64(n), nil
}

// EncodeInterval turns a clock interval into its log record.
func EncodeInterval(step string, iv *measure.Interval) *IntervalRecord {
	var e IntervalEncoder
	return e.Encode(step, iv)
}

// IntervalEncoder encodes a step's intervals one after another, reusing its
// histogram encoder: the clock's tick calls it every interval, and hdr's own
// Encode costs more than the tick's other work together (measure.HistEncoder).
type IntervalEncoder struct{ hist measure.HistEncoder }

// Encode is EncodeInterval with the encoder's reused buffers.
func (e *IntervalEncoder) Encode(step string, iv *measure.Interval) *IntervalRecord {
	rec := &IntervalRecord{
		Step:    step,
		Index:   iv.Index,
		Warmup:  iv.Warmup,
		StartMs: iv.Start.UnixMilli(),
		Seconds: iv.Seconds,
		Ops:     map[string]OpRecord{},
	}
	for op, o := range iv.Ops {
		if o == nil || o.Ops == 0 {
			continue
		}
		lat := measure.Summarize(o.Hist)
		var enc string
		// The record holds the V2 text base64-encoded once more, as it
		// always has (bundles already written read the same way).
		if b, err := e.hist.Encode(o.Hist); err == nil {
			enc = base64.StdEncoding.EncodeToString(b)
		}
		rec.Ops[iv.Spec.Name(measure.Op(op))] = OpRecord{
			Ops: o.Ops, Rows: o.Rows, Errors: o.Errors,
			Rate: units.RoundHalfUp(iv.Rate(measure.Op(op)), 1),
			P50:  lat.P50, P99: lat.P99, Max: lat.Max,
			Hist: enc,
		}
	}
	return rec
}

// Bundle is a bundle read back from disk.
type Bundle struct {
	Dir       string
	Run       Run
	Steps     map[string]*Step
	Intervals []IntervalRecord
}

// ErrNoBundle is wrapped when a directory holds no run.json.
var ErrNoBundle = errors.New("no run bundle")

// Read loads the bundle in dir.
func Read(dir string) (*Bundle, error) {
	b := &Bundle{Dir: dir, Steps: map[string]*Step{}}
	raw, err := os.ReadFile(filepath.Join(dir, RunFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s (expected %s)", ErrNoBundle, dir, RunFile)
	}
	if err != nil {
		return nil, fmt.Errorf("read bundle: %w", err)
	}
	if err := json.Unmarshal(raw, &b.Run); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, RunFile), err)
	}
	if b.Run.SchemaVersion != SchemaVersion && b.Run.SchemaVersion != 1 {
		return nil, fmt.Errorf("%s has schema_version %d; this rumbench reads versions 1 and %d (use a rumbench at least as new as the one that wrote it)", filepath.Join(dir, RunFile), b.Run.SchemaVersion, SchemaVersion)
	}
	entries, err := os.ReadDir(filepath.Join(dir, StepsDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read steps: %w", err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, StepsDir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read step: %w", err)
		}
		var s Step
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("read %s: %w", e.Name(), err)
		}
		upgradeSize(&s)
		b.Steps[s.Step] = &s
	}
	if b.Run.SchemaVersion == 1 {
		upgradeV1(b)
	}
	for _, s := range b.Steps {
		upgradeTarget(s)
	}
	f, err := os.Open(filepath.Join(dir, IntervalsFile))
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var rec IntervalRecord
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				// A torn last line after a crash is expected; stop there.
				break
			}
			b.Intervals = append(b.Intervals, rec)
		}
	}
	for _, s := range b.Steps {
		if s.Unfinished {
			b.fillUnfinished(s)
		}
	}
	return b, nil
}

// StepNames returns the bundle's steps in run order (as planned in run.json,
// then any others alphabetically).
func (b *Bundle) StepNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range b.Run.Steps {
		if _, ok := b.Steps[s]; ok && !seen[s] {
			out = append(out, s)
			seen[s] = true
		}
	}
	var rest []string
	for s := range b.Steps {
		if !seen[s] {
			rest = append(rest, s)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// WriteJSONAtomic writes v as indented JSON to path through a temp file and
// a rename (reports written beside bundles, e.g. a repeated run's summary).
func WriteJSONAtomic(path string, v any) error {
	_, err := writeJSONAtomic(path, v)
	return err
}
