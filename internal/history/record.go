package history

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"rumbench/internal/report"
	"rumbench/internal/results"
)

// HostClass is the machine part of a series key: CPU model, cores, memory
// rounded to GiB (kernels report a few MB more or less on one machine) and
// the data dir's device. Runs on two machines of one class share series.
func HostClass(cpu string, cores int, memBytes int64, device string) string {
	gib := (memBytes + 1<<29) >> 30
	c := fmt.Sprintf("%s/%dc/%dGiB", strings.TrimSpace(cpu), cores, gib)
	if device != "" {
		c += "/" + device
	}
	return c
}

// RunKey is a bundle's identity in the store: the host, the instant it
// started (nanoseconds), the engine and workload, and for shard and merged
// bundles the sharded run's id and the shard. It is not a hash of the
// bundle's files, which change after the run (the parent adds the memory
// cgroup's figures to run.json; an interrupted step is rebuilt when read),
// nor its path, which changes when a results directory is moved or copied:
// the same run added from anywhere, in any state, is one run.
func RunKey(r *results.Run) string {
	parts := []string{r.Host.Hostname, r.StartedAt.UTC().Format(time.RFC3339Nano), r.Engine.Name, r.Workload}
	if r.Shard != nil {
		parts = append(parts, fmt.Sprintf("shard %s %d/%d", r.Shard.RunID, r.Shard.Index, r.Shard.Count))
	}
	if r.MergedFrom != nil {
		parts = append(parts, "merged "+r.MergedFrom.RunID)
	}
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}

// Kind of a recorded bundle.
const (
	KindRun    = "run"    // one engine's bundle of a run, a repetition or a sweep cell
	KindMerged = "merged" // made by `rumbench merge` of a sharded run's shards
)

// Added is what Add did with one bundle.
type Added struct {
	Dir string
	Key string
	// Existed is true when the run was already recorded: its rows were
	// replaced by the bundle's (the same run, perhaps completed since).
	Existed bool
	// Skipped says why the bundle was not recorded (a single shard's
	// bundle: its merged bundle is the run).
	Skipped string
	Steps   int
}

// Add records bundle b under label (the engine's name when empty). A
// bundle already recorded (same RunKey) replaces its earlier rows, so
// adding twice leaves one run.
func (s *Store) Add(ctx context.Context, b *report.Bundle, label string) (Added, error) {
	r := &b.Run
	a := Added{Dir: b.Dir, Key: RunKey(r)}
	if r.Shard != nil {
		a.Skipped = fmt.Sprintf("shard %d of %d of a sharded run: record the bundle `rumbench merge` makes of its shards", r.Shard.Index, r.Shard.Count)
		return a, nil
	}
	if label == "" {
		label = r.VariantLabel()
	}
	kind := KindRun
	if r.MergedFrom != nil {
		kind = KindMerged
	}
	finished := ""
	if r.FinishedAt != nil {
		finished = fmtTime(*r.FinishedAt)
	}
	dir, err := filepath.Abs(b.Dir)
	if err != nil {
		dir = b.Dir
	}
	cols := []any{
		a.Key, fmtTime(r.StartedAt), finished, r.Workload, jsonText(workloadSizes(r)), label,
		r.Engine.Name, r.Engine.Version, jsonText(r.Engine.Settings), jsonText(r.MeasuredSettings), jsonText(r.Config),
		r.Tool.Version, r.Tool.Commit, r.Host.Hostname, r.Host.CPUModel, r.Host.Cores, r.Host.MemoryBytes, r.Host.Device,
		boolInt(r.Complete), dir, fmtTime(time.Now()), HostClass(r.Host.CPUModel, r.Host.Cores, r.Host.MemoryBytes, r.Host.Device), kind,
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return a, fmt.Errorf("history %s: %w", s.where, s.redact(err))
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, s.q(`SELECT count(*) FROM runs WHERE run_key = ?`), a.Key).Scan(&n); err != nil {
		return a, fmt.Errorf("history %s: look up run: %w", s.where, err)
	}
	a.Existed = n > 0
	// An upsert, not delete-then-insert: two processes adding the same
	// bundle at once leave one row whichever commits first.
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO runs (run_key, started_at, finished_at, workload, sizes, label,
			engine, engine_version, engine_settings, measured_settings, config,
			tool_version, tool_commit, hostname, cpu_model, cores, memory_bytes, device,
			complete, dir, added_at, host_class, kind)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_key) DO UPDATE SET started_at = excluded.started_at, finished_at = excluded.finished_at,
			workload = excluded.workload, sizes = excluded.sizes, label = excluded.label, engine = excluded.engine,
			engine_version = excluded.engine_version, engine_settings = excluded.engine_settings,
			measured_settings = excluded.measured_settings, config = excluded.config,
			tool_version = excluded.tool_version, tool_commit = excluded.tool_commit, hostname = excluded.hostname,
			cpu_model = excluded.cpu_model, cores = excluded.cores, memory_bytes = excluded.memory_bytes,
			device = excluded.device, complete = excluded.complete, dir = excluded.dir, added_at = excluded.added_at,
			host_class = excluded.host_class, kind = excluded.kind`), cols...); err != nil {
		return a, fmt.Errorf("history %s: record run %s: %w", s.where, b.Dir, err)
	}
	for _, st := range []string{`DELETE FROM steps WHERE run_key = ?`, `DELETE FROM figures WHERE run_key = ?`} {
		if _, err := tx.ExecContext(ctx, s.q(st), a.Key); err != nil {
			return a, fmt.Errorf("history %s: replace run %s: %w", s.where, b.Dir, err)
		}
	}
	names := b.StepNames()
	for seq, name := range names {
		step := b.Steps[name]
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO steps (run_key, step, seq, main_op, complete, error) VALUES (?, ?, ?, ?, ?, ?)`),
			a.Key, name, seq+1, step.MainOp, boolInt(step.Complete), step.Error); err != nil {
			return a, fmt.Errorf("history %s: record step %s of %s: %w", s.where, name, b.Dir, err)
		}
		for _, f := range report.StepFigures(b, name) {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO figures (run_key, step, figure, value) VALUES (?, ?, ?, ?)`),
				a.Key, name, f.Key, f.Value); err != nil {
				return a, fmt.Errorf("history %s: record %s of step %s of %s: %w", s.where, f.Key, name, b.Dir, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return a, fmt.Errorf("history %s: commit run %s: %w", s.where, b.Dir, s.redact(err))
	}
	a.Steps = len(names)
	return a, nil
}

// AddDirs records every bundle under paths (a bundle, a run's --out, a
// repeated run's rep-N directories, a sweep's cells, merged bundles: any
// directory holding bundles at any depth), as `rumbench report` finds
// them.
func (s *Store) AddDirs(ctx context.Context, paths []string, label string) ([]Added, error) {
	bundles, err := report.Load(paths)
	if err != nil {
		return nil, err
	}
	var out []Added
	for _, b := range bundles {
		a, err := s.Add(ctx, b, label)
		if err != nil {
			return out, err
		}
		out = append(out, a)
	}
	return out, nil
}

// workloadSizes are the sizes that decide how much work a run does, as
// text: two runs of one series did the same work.
func workloadSizes(r *results.Run) map[string]string {
	out := map[string]string{}
	for k, v := range r.Sizes {
		switch x := v.(type) {
		case string:
			out[k] = x
		case float64:
			out[k] = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			b, _ := json.Marshal(x)
			out[k] = string(b)
		}
	}
	return out
}

// jsonText encodes v canonically (maps with sorted keys); nil is {}.
func jsonText(v any) string {
	if v == nil {
		return "{}"
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return "{}"
	}
	return string(b)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
