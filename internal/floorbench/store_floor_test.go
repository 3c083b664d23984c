package floorbench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"rumbench/internal/engine"
	_ "rumbench/internal/engine/all"
	"rumbench/internal/engine/kv"
	"rumbench/internal/engine/kv/keyenc"
	"rumbench/internal/enginetest/kvtest"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/sysmetrics"
	"rumbench/internal/workload"
	"rumbench/internal/workload/ibench"
	"rumbench/internal/workload/linkbench"
)

// BenchmarkLoadFloor answers, per kv engine, how fast the engine alone
// takes exactly the writes of a rumbench load, with no client in the way:
// it runs the LinkBench load and an insert benchmark l.i0 of as many rows
// (2 clients) through rumbench (the runner and the real workloads) while
// recording every batch the kv layer commits, then replays those batches,
// one goroutine per recorded batch stream (a connection), into a fresh
// store of the same engine and options through the store's own batches
// (kv.Store.NewBatch, Set, Commit): no row generation, no encoding, no
// uniqueness reads, no locks, no measurement. It reports each load's rate
// both ways, rumbench/store (the client's and table layer's share), and
// LinkBench-load/l.i0 both ways: the store's ratio is what any client
// could reach on that engine without writing less.
//
// A third side separates the kv layer from the workload and the runner,
// which rumbench's side includes (the rows' generation, the measurement):
// the same run also records the rows each connection passed to
// model.Ops.Insert (engine.WithDBWrapper; copies in an arena, per
// connection, in order) and the schema calls, and the kv replay makes
// them again on a fresh kv DB of the same engine and options, the schema
// first (untimed), then one goroutine and connection per recorded stream:
// the kv layer and the store, nothing else. It reports store/kv-replay in
// CPU per row (both until quiet, and both to their last write), the bare
// store's share of the kv layer's cost, and kv-replay/rumbench, the kv
// layer's share of rumbench's.
//
// Each round runs both loads all three ways; the figures reported are medians
// over the rounds of each rate and of each round's ratios. The CPU per row
// is read two ways on every side: to the end (rumbench's step, from /proc;
// the replays' last commit or insert) and until the engine is quiet after
// it (model.Quiescer: the flushes and compactions the writes started),
// each side starting on a quiet engine.
//
// Sizes: FLOOR_NODES (LinkBench nodes, default 1000000; l.i0 loads as many
// rows as the LinkBench load inserted), FLOOR_ROUNDS (default 3),
// FLOOR_KV_ENGINES (default pebble,rocksdb,wiredtiger,bbolt; engines not
// built in are skipped); FLOOR_LOAD_SERIAL=1 (loadSerial);
// FLOOR_ENGINE_OPTS, engine options (key=value, comma separated) for
// every side alike, e.g. unique_check=false to see what the
// insert's duplicate-key check costs. The recordings take ~3.5 kB of
// memory per node (LinkBench load; the rows as Insert takes them, ~2.5 kB,
// and the batches), mapped for the load and released after it. Run (or
// scripts/loadfloor.sh):
//
//	go test -tags rocksdb,wiredtiger -run '^$' -bench BenchmarkLoadFloor -benchtime 1x -timeout 60m ./internal/floorbench
func BenchmarkLoadFloor(b *testing.B) {
	for _, eng := range envList("FLOOR_KV_ENGINES", "pebble,rocksdb,wiredtiger,bbolt") {
		b.Run(eng, func(b *testing.B) { loadFloor(b, eng) })
	}
}

func loadFloor(b *testing.B, eng string) {
	if _, err := engine.Lookup(eng); err != nil {
		b.Skip(err)
	}
	lc := linkbench.DefaultConfig()
	lc.Nodes = envInt("FLOOR_NODES", 1_000_000)
	lc.Steps = []string{linkbench.StepLoad}
	var lbModel, lbStore, li0Model, li0Store []float64
	// CPU per row, store alone ÷ rumbench, per round: the same share as
	// the rates' ratio when both are CPU-bound, without the rates' noise
	// (compaction and flush timing, the disk's other users).
	var lbCPU, li0CPU []float64
	// The same with the store's CPU until its background work ended.
	var lbQuiet, li0Quiet []float64
	// Both sides until quiet: the store's replay and rumbench's step each
	// with the flushes and compactions they started, to the engine's
	// Quiesce.
	var lbBoth, li0Both []float64
	// The kv replay: the store's CPU per row over the kv layer's alone,
	// both until quiet and both to their last write, and the kv layer's
	// over rumbench's, both until quiet.
	var lbKV, li0KV, lbKVEnd, li0KVEnd, lbKVModel, li0KVModel []float64
	opts, err := envOpts("FLOOR_ENGINE_OPTS")
	if err != nil {
		b.Fatal(err)
	}
	for r := range envInt("FLOOR_ROUNDS", 3) {
		// ~130 B of keys and values per row, 5.2 rows per node; the rows
		// as Insert takes them, ~350 B (model.Value is 32 B).
		// rumbench's own figures come from each load run again without the
		// recording, which copies every key and value: the harness's
		// bookkeeping is not rumbench's cost. The rounds take turns on
		// which runs first after the recording: the two replays on the
		// odd rounds as logged (1, 3, ...), rumbench's run on the even
		// ones, so that neither side always has the runs before it in
		// the page cache, the heap and the disk's queue.
		first := r%2 == 1
		load := func(step string, arenaBytes, rowArenaBytes int64, cfg any, newW func() (workload.Workload, error)) *floorLoad {
			plain := func(l *floorLoad) { plainLoad(b, eng, opts, l, cfg, newW) }
			var before func(*floorLoad)
			if first {
				before = plain
			}
			l := recordLoad(b, eng, opts, step, arenaBytes, rowArenaBytes, cfg, newW, "", b.TempDir(), "", nil, before)
			if !first {
				plain(l)
			}
			return l
		}
		lb := load(linkbench.StepLoad, lc.Nodes*1000, lc.Nodes*2500, lc, func() (workload.Workload, error) { return linkbench.New(lc) })
		ic := ibench.Config{Clients: 2, Rows: (lb.rows + 1) / 2, Indexes: 3, PadMin: 10, PadMax: 20, PadRandomPct: 50,
			Seed: lc.Seed, Steps: []string{ibench.StepLoad}}
		li0 := load(ibench.StepLoad, lb.rows*80, lb.rows*320, ic, func() (workload.Workload, error) { return ibench.New(ic) })
		b.Logf("round %d: %s: %s ran first after each recording", r+1, eng, map[bool]string{true: "rumbench's run", false: "the replays"}[first])
		for _, l := range []*floorLoad{lb, li0} {
			b.Logf("round %d: %s %s: µs of CPU per row, rumbench: step %.2f (getrusage %.2f), until quiet %.2f; store: to last commit %.2f, until quiet %.2f; store/rumbench: to last commit vs step %.2f, until quiet vs until quiet %.2f",
				r+1, eng, l.step, l.modelCPU, l.modelOwnCPU, l.modelQuietCPU, l.rawCPU/float64(l.rows), l.rawQuietCPU/float64(l.rows), l.cpuShare(), l.bothQuietShare())
			b.Logf("round %d: %s %s: %d rows, %d store writes (%.1f per row), %.1f B of keys and values per row; rumbench %.0f rows/s (%.2f µs CPU per row; %.0f rows/s, %.2f µs while recording), store alone %.0f rows/s (%.2f µs CPU per row, %.2f until its background work ended): rumbench/store %.2f",
				r+1, eng, l.step, l.rows, l.writes, float64(l.writes)/float64(l.rows), float64(l.bytes)/float64(l.rows),
				l.modelRate, l.modelCPU, l.recordedRate, l.recordedCPU, l.rawRate(), l.rawCPU/float64(l.rows), l.rawQuietCPU/float64(l.rows), l.modelRate/l.rawRate())
			b.Logf("round %d: %s %s: kv layer alone (%d streams of inserts replayed): µs of CPU per row to the last insert %.2f, until quiet %.2f, %.0f rows/s (%.1f B and %.2f allocations per row on the Go heap, %d collections); store/kv-replay in CPU per row: both until quiet %.2f, both to the last write %.2f; kv-replay/rumbench both until quiet %.2f (kv replay %s to %s UTC, %.0f ms of CPU until quiet; load average %s)",
				r+1, eng, l.step, l.streams, l.kv.cpuUs/float64(l.rows), l.kv.quietUs/float64(l.rows), float64(l.rows)/l.kv.secs,
				float64(l.kv.allocBytes)/float64(l.rows), float64(l.kv.allocs)/float64(l.rows), l.kv.gcs, l.kvShare(), l.kvEndShare(), l.kvModelShare(),
				l.kv.from.Format("15:04:05.000"), l.kv.to.Format("15:04:05.000"), l.kv.quietUs/1e3, loadAvg())
			b.Logf("round %d: %s %s: per row to the last write, rumbench (%s): %s; store (%s): %s; kv replay: %s",
				r+1, eng, l.step, utcWindow(l.modelWindow), l.modelProc.per(float64(l.rows)), utcWindow(l.rawWindow), l.rawProc.per(float64(l.rows)), l.kv.proc.per(float64(l.rows)))
			if l.modelTicks != nil && l.kv.ticks != nil && l.rawTicks != nil {
				n := float64(l.rows) / 1000 // per 1,000 rows: a commit's pages are shared by its rows
				b.Logf("round %d: %s %s: the engine's own counters per 1,000 rows that differ most, kv replay/rumbench: %s; store/rumbench: %s",
					r+1, eng, l.step, tickersApart(l.kv.ticks, n, l.modelTicks, n, 8), tickersApart(l.rawTicks, n, l.modelTicks, n, 8))
			}
			if l.kv.readUs > 0 {
				b.Logf("round %d: %s %s: the kv replay read each call's rows just before it (FLOOR_KV_WARM); the read alone, %.3f µs of CPU per row, is taken out of its figures above",
					r+1, eng, l.step, l.kv.readUs/float64(l.rows))
			}
		}
		lbKV, li0KV = append(lbKV, lb.kvShare()), append(li0KV, li0.kvShare())
		lbKVEnd, li0KVEnd = append(lbKVEnd, lb.kvEndShare()), append(li0KVEnd, li0.kvEndShare())
		lbKVModel, li0KVModel = append(lbKVModel, lb.kvModelShare()), append(li0KVModel, li0.kvModelShare())
		lbCPU, li0CPU = append(lbCPU, lb.cpuShare()), append(li0CPU, li0.cpuShare())
		lbQuiet, li0Quiet = append(lbQuiet, lb.quietShare()), append(li0Quiet, li0.quietShare())
		lbBoth, li0Both = append(lbBoth, lb.bothQuietShare()), append(li0Both, li0.bothQuietShare())
		b.Logf("round %d: %s: LinkBench load / l.i0 rows/s: rumbench %.2f, store alone %.2f (load average %s)",
			r+1, eng, lb.modelRate/li0.modelRate, lb.rawRate()/li0.rawRate(), loadAvg())
		lbModel, lbStore = append(lbModel, lb.modelRate), append(lbStore, lb.rawRate())
		li0Model, li0Store = append(li0Model, li0.modelRate), append(li0Store, li0.rawRate())
	}
	ratios := func(a, b []float64) float64 {
		v := make([]float64, len(a))
		for i := range a {
			v[i] = a[i] / b[i]
		}
		return median(v)
	}
	b.Logf("%s, medians of %d rounds: load rumbench %.0f, store alone %.0f rows/s; l.i0 rumbench %.0f, store alone %.0f rows/s; load/l.i0 rumbench %.2f, store alone %.2f",
		eng, len(lbModel), median(lbModel), median(lbStore), median(li0Model), median(li0Store), ratios(lbModel, li0Model), ratios(lbStore, li0Store))
	b.Logf("%s, medians of %d rounds: rumbench/store in rows/s: load %.2f, l.i0 %.2f; store/rumbench in CPU per row: load %.2f (%s), l.i0 %.2f (%s); the same with the store's CPU until its background work ended: load %.2f (%s), l.i0 %.2f (%s)",
		eng, len(lbModel), ratios(lbModel, lbStore), ratios(li0Model, li0Store), median(lbCPU), fmtList(lbCPU), median(li0CPU), fmtList(li0CPU),
		median(lbQuiet), fmtList(lbQuiet), median(li0Quiet), fmtList(li0Quiet))
	b.Logf("%s, medians of %d rounds: store/rumbench in CPU per row, both until quiet (rumbench's step and the store's replay each to the engine's Quiesce): load %.2f (%s), l.i0 %.2f (%s)",
		eng, len(lbModel), median(lbBoth), fmtList(lbBoth), median(li0Both), fmtList(li0Both))
	b.Logf("%s, medians of %d rounds: store/kv-replay in CPU per row (the bare store over the kv layer alone replaying rumbench's inserts), both until quiet: load %.2f (%s), l.i0 %.2f (%s); both to the last write: load %.2f (%s), l.i0 %.2f (%s); kv-replay/rumbench both until quiet: load %.2f (%s), l.i0 %.2f (%s)",
		eng, len(lbModel), median(lbKV), fmtList(lbKV), median(li0KV), fmtList(li0KV), median(lbKVEnd), fmtList(lbKVEnd), median(li0KVEnd), fmtList(li0KVEnd),
		median(lbKVModel), fmtList(lbKVModel), median(li0KVModel), fmtList(li0KVModel))
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(median(lbKV), "load-quiet-cpu-store/kv")
	b.ReportMetric(median(li0KV), "l.i0-quiet-cpu-store/kv")
	b.ReportMetric(ratios(lbModel, li0Model), "rumbench-load/l.i0")
	b.ReportMetric(ratios(lbStore, li0Store), "store-load/l.i0")
	b.ReportMetric(ratios(lbModel, lbStore), "load-rumbench/store")
	b.ReportMetric(ratios(li0Model, li0Store), "l.i0-rumbench/store")
	b.ReportMetric(median(lbCPU), "load-cpu-store/rumbench")
	b.ReportMetric(median(li0CPU), "l.i0-cpu-store/rumbench")
	b.ReportMetric(median(lbBoth), "load-quiet-cpu-store/rumbench")
	b.ReportMetric(median(li0Both), "l.i0-quiet-cpu-store/rumbench")
}

// floorLoad is one load, through rumbench and replayed.
type floorLoad struct {
	step                string
	rows, writes, bytes int64
	modelRate           float64 // the step's rows/s (ips_avg); without the recording in BenchmarkLoadFloor
	modelCPU            float64 // its CPU µs per row (the measured process: all of rumbench and the engine)
	modelOwnCPU         float64 // the same by getrusage from the step's start to its end
	// modelQuietCPU is the CPU µs per row from the step's start until the
	// engine was quiet after it (model.Quiescer; 0: it cannot tell): the
	// step with the flushes and compactions its writes started.
	modelQuietCPU   float64
	recordedRate    float64 // the same while recording
	recordedCPU     float64
	rawSecs, rawCPU float64 // the replay's seconds and CPU µs
	// rawQuietCPU is the replay's CPU µs until the store's background work
	// (flushes, compactions it started) has finished: the store's whole
	// cost of the writes, where rawCPU leaves what still runs after the
	// last commit out (0: the engine cannot tell, model.Quiescer).
	rawQuietCPU float64
	// modelTicks and rawTicks are the engine's own counters (engineTickers)
	// over rumbench's step and over the store's replay, each until quiet.
	modelTicks, rawTicks map[string]int64
	// modelProc and rawProc are what the process counted (procStats) over
	// rumbench's step and over the store's replay to its last commit.
	modelProc, rawProc procStats
	// modelWindow and rawWindow are rumbench's step and the store's replay
	// to its last commit, in UTC, for a check by a sampler outside the
	// process.
	modelWindow, rawWindow [2]time.Time
	keyspaces              [][]byte  // the prefixes of the keyspaces created (kv.Keyspaces stores)
	kv                     *kvReplay // the kv replay (the kv layer alone)
	streams                int       // the connections' streams it replayed
}

func (l *floorLoad) rawRate() float64 { return float64(l.rows) / l.rawSecs }

// kvShare is the store's CPU per row over the kv replay's, both until the
// engine was quiet: the bare store's share of the kv layer's cost.
func (l *floorLoad) kvShare() float64 { return l.rawQuietCPU / l.kv.quietUs }

// kvEndShare is the same to the last write on both sides.
func (l *floorLoad) kvEndShare() float64 { return l.rawCPU / l.kv.cpuUs }

// kvModelShare is the kv replay's CPU per row over rumbench's, both until
// quiet: the kv layer's share of rumbench's load.
func (l *floorLoad) kvModelShare() float64 { return l.kv.quietUs / float64(l.rows) / l.modelQuietCPU }

// cpuShare is the store's CPU per row over rumbench's.
func (l *floorLoad) cpuShare() float64 { return l.rawCPU / float64(l.rows) / l.modelCPU }

// quietShare is cpuShare with the store's CPU until its background work
// ended.
func (l *floorLoad) quietShare() float64 { return l.rawQuietCPU / float64(l.rows) / l.modelCPU }

// bothQuietShare is the store's CPU per row over rumbench's, both until
// the engine was quiet.
func (l *floorLoad) bothQuietShare() float64 {
	return l.rawQuietCPU / float64(l.rows) / l.modelQuietCPU
}

// recordLoad runs step of the workload on eng through the runner with the
// kv layer's writes and the connections' inserts recorded, then replays
// the writes into a fresh store and the inserts into a fresh kv DB.
// modelDir, replayDir and kvDir are the data dirs of the three ("" for
// modelDir and kvDir: a temporary one); arenaBytes and rowArenaBytes the
// sizes of the two recordings' arenas. check, when set, records the kv
// replay's calls and compares them with rumbench's (check.err).
// beforeReplays, when set, runs between the recording and the replays
// (rumbench's own run, when it goes first).
func recordLoad(b testing.TB, eng string, opts map[string]string, step string, arenaBytes, rowArenaBytes int64, cfg any, newW func() (workload.Workload, error), modelDir, replayDir, kvDir string, check *kvReplayCheck, beforeReplays func(*floorLoad)) *floorLoad {
	a, err := newArena(arenaBytes)
	if err != nil {
		b.Fatal(err)
	}
	defer a.free()
	ma, err := newArena(rowArenaBytes)
	if err != nil {
		b.Fatal(err)
	}
	defer ma.free()
	rec, mrec := &recorder{arena: a}, newModelRecorder(ma)
	ctx := engine.WithDBWrapper(kv.WithStoreWrapper(context.Background(), rec.wrap), mrec.wrap)
	lr, err := runLoad(ctx, b, eng, opts, step, cfg, newW, modelDir, false)
	if err != nil {
		b.Fatalf("%s on %s: %v (recorded %d MB of %d, %d MB of %d of rows)", step, eng, err, min(a.next.Load(), int64(len(a.mem)))>>20, len(a.mem)>>20,
			min(ma.next.Load(), int64(len(ma.mem)))>>20, len(ma.mem)>>20)
	}
	if n := rec.unrecorded.Load(); n > 0 {
		b.Fatalf("%s on %s: %d range deletes, which the replay does not repeat", step, eng, n)
	}
	if err := mrec.check(); err != nil {
		b.Fatalf("%s on %s: %v", step, eng, err)
	}
	st, cpu := lr.st, lr.cpu
	l := &floorLoad{step: step, rows: st.Inserted, recordedRate: st.IPSAvg, recordedCPU: cpu, modelRate: st.IPSAvg, modelCPU: cpu,
		modelOwnCPU: lr.ownCPU, modelQuietCPU: lr.quietCPU, modelTicks: lr.ticks, modelProc: lr.proc,
		modelWindow: [2]time.Time{lr.start, lr.stop}}
	l.writes, l.bytes = rec.totals()
	for _, k := range rec.keyspaces {
		l.keyspaces = append(l.keyspaces, k.prefix)
	}
	if l.writes < l.rows {
		b.Fatalf("%s on %s: %d store writes recorded for %d rows", step, eng, l.writes, l.rows)
	}
	if beforeReplays != nil {
		beforeReplays(l)
	}
	// Labels split a CPU profile of the benchmark by side (churnStep).
	// Each side starts with the runs before it written back (writtenBack).
	writtenBack(b, replayDir)
	pprof.Do(context.Background(), pprof.Labels("side", "store", "step", step), func(context.Context) {
		sr := replay(b, eng, opts, rec, replayDir)
		l.rawSecs, l.rawCPU, l.rawQuietCPU, l.rawTicks, l.rawProc = sr.secs, sr.cpuUs, sr.quietUs, sr.ticks, sr.proc
		l.rawWindow = [2]time.Time{sr.from, sr.to}
	})
	if kvDir == "" {
		kvDir = b.TempDir()
	}
	writtenBack(b, kvDir)
	var wrap func(model.DB) model.DB
	if check != nil {
		wrap = check.rec.wrap
	}
	var kr *kvReplay
	pprof.Do(context.Background(), pprof.Labels("side", "kv-replay", "step", step), func(context.Context) {
		kr, err = replayKV(eng, opts, mrec, kvDir, check == nil, wrap)
	})
	if err != nil {
		b.Fatalf("%s on %s: %v", step, eng, err)
	}
	if kr.rows != l.rows {
		b.Fatalf("%s on %s: %d rows recorded at the model, %d inserted", step, eng, kr.rows, l.rows)
	}
	l.kv = kr
	l.streams = len(mrec.streams)
	if check != nil {
		check.err = sameRecording(mrec, check.rec)
	}
	return l
}

// writtenBack writes back the dirty pages of the filesystem holding dir
// (the temporary directory when ""), before a side of the load floor runs:
// a store that leaves its writes to the OS (bbolt with sync=false) would
// otherwise have the runs before it written back, 30 s after, in the
// middle of the side that runs then.
func writtenBack(b testing.TB, dir string) {
	if dir == "" {
		dir = os.TempDir()
	}
	if err := sysmetrics.SyncFilesystem(dir); err != nil {
		b.Fatal(err)
	}
}

// kvReplayCheck asks recordLoad to record the kv replay's calls in rec
// and to compare them with the recorded ones (err: how they differ).
type kvReplayCheck struct {
	rec *modelRecorder
	err error
}

// plainLoad runs l's load through rumbench without the recording and
// makes its rate and CPU l's rumbench figures.
func plainLoad(b testing.TB, eng string, opts map[string]string, l *floorLoad, cfg any, newW func() (workload.Workload, error)) {
	var lr *loadRun
	var err error
	writtenBack(b, "")
	runtime.GC() // as before the replays: the runs before leave their garbage to neither side
	pprof.Do(context.Background(), pprof.Labels("side", "rumbench", "step", l.step), func(context.Context) {
		lr, err = runLoad(context.Background(), b, eng, opts, l.step, cfg, newW, "", true)
	})
	if err != nil {
		b.Fatalf("%s on %s without recording: %v", l.step, eng, err)
	}
	if lr.st.Inserted != l.rows {
		b.Fatalf("%s on %s: %d rows without recording, %d with", l.step, eng, lr.st.Inserted, l.rows)
	}
	l.modelRate, l.modelCPU, l.modelOwnCPU, l.modelQuietCPU = lr.st.IPSAvg, lr.cpu, lr.ownCPU, lr.quietCPU
	l.modelTicks, l.modelProc, l.modelWindow = lr.ticks, lr.proc, [2]time.Time{lr.start, lr.stop}
}

// loadRun is a step run by rumbench: its summary and its CPU µs per row
// inserted, over the step (cpu: the step's own /proc figure; ownCPU:
// getrusage from its start to its end) and until the engine was quiet
// after it (quietCPU, 0 when the engine cannot tell).
type loadRun struct {
	st                    *results.Step
	cpu, ownCPU, quietCPU float64
	// proc is what the process counted over the step (quietObserver).
	proc procStats
	// ticks is what the engine's own tickers counted over the step, until
	// quiet (nil: it has none).
	ticks map[string]int64
	// start and stop are the step's window (quietObserver), for a check
	// by a sampler outside the process.
	start, stop time.Time
}

// quietObserver measures one step of a run: the process CPU (getrusage)
// from the step's start to its end, and to the moment the engine is quiet
// after it (model.Quiescer), waited for as soon as the step's clock
// stopped (Observer.StepStop), before the runner reads the engine's size
// and statistics. Unless skip is set, it also waits for the engine to be
// quiet before the step starts (untimed). Waiting there delays the next step, which matters to
// no run of this package: each runs the measured step last.
type quietObserver struct {
	step            string
	skip            bool // measure the step only
	db              model.DB
	active          bool
	cpu0            float64
	stepUs, quietUs float64
	proc0, proc     procStats        // at the step's start; over the step
	tick0, ticks    map[string]int64 // the engine's tickers before the step; over it, until quiet
	start, stop     time.Time        // the step's window, for outside tools
	err             error
}

func (q *quietObserver) factory() runner.ObserverFactory {
	return func(_ context.Context, db model.DB, _, _ string) (runner.Observer, error) {
		q.db = db
		return q, nil
	}
}

func (q *quietObserver) StepStart(step string, _ results.StepDesc) {
	q.active = step == q.step
	if q.active {
		q.proc0 = procStatsNow()
		q.cpu0, q.start = cpuNow(), time.Now()
	}
}

// before is the observer that waits, untimed, for the engine to be quiet
// before the step starts, as the replays do: what opening the store
// started (pebble's flush of the memtable recovered from its WAL, when a
// step runs on a store an earlier run closed) is not the step's. It comes
// first in the run's observers, so that the sampler's figures for the
// step start after the wait too.
func (q *quietObserver) before() runner.ObserverFactory {
	return func(context.Context, model.DB, string, string) (runner.Observer, error) {
		return quietBefore{q}, nil
	}
}

type quietBefore struct{ q *quietObserver }

func (b quietBefore) StepStart(step string, _ results.StepDesc) {
	q := b.q
	if step != q.step {
		return
	}
	// The engine's tickers are read here and after the quiet wait at the
	// step's end (StepStop), outside every figure of the step, as the
	// replay reads them outside its own.
	defer func() { q.tick0 = engineTickers(q.db) }()
	qs, ok := q.db.(model.Quiescer)
	if !ok || q.skip {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	_, q.err = qs.Quiesce(ctx)
	cancel()
}

func (quietBefore) Interval(*measure.Interval) map[string]any { return nil }
func (quietBefore) StepStop(*measure.Clock, int64)            {}
func (quietBefore) StepEnd(*results.Step, *measure.Clock)     {}
func (quietBefore) Close() error                              { return nil }

func (q *quietObserver) Interval(*measure.Interval) map[string]any { return nil }

func (q *quietObserver) StepStop(*measure.Clock, int64) {
	if !q.active {
		return
	}
	q.active = false
	q.stepUs = cpuNow() - q.cpu0
	q.proc = procStatsNow().since(q.proc0)
	q.stop = time.Now()
	defer func() { q.ticks = tickerDelta(q.tick0, engineTickers(q.db)) }()
	qs, ok := q.db.(model.Quiescer)
	if !ok || q.skip || q.err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, q.err = qs.Quiesce(ctx); q.err == nil {
		q.quietUs = cpuNow() - q.cpu0
	}
}

func (q *quietObserver) StepEnd(*results.Step, *measure.Clock) {}
func (q *quietObserver) Close() error                          { return nil }

// warmObserver reads the whole store before its step starts (untimed,
// warmStore): the store is the one the kv layer was given, caught by
// catch as the context's store wrapper.
type warmObserver struct {
	step      string
	keyspaces [][]byte
	store     kv.Store
	err       error
}

// catch is a store wrapper that keeps the store and wraps it in next (nil:
// none).
func (w *warmObserver) catch(next func(kv.Store) kv.Store) func(kv.Store) kv.Store {
	return func(s kv.Store) kv.Store {
		w.store = s
		if next != nil {
			return next(s)
		}
		return s
	}
}

func (w *warmObserver) factory() runner.ObserverFactory {
	return func(context.Context, model.DB, string, string) (runner.Observer, error) { return w, nil }
}

func (w *warmObserver) StepStart(step string, _ results.StepDesc) {
	if step == w.step && w.store != nil {
		w.err = warmStore(w.store, w.keyspaces)
	}
}
func (w *warmObserver) Interval(*measure.Interval) map[string]any { return nil }
func (w *warmObserver) StepStop(*measure.Clock, int64)            {}
func (w *warmObserver) StepEnd(*results.Step, *measure.Clock)     {}
func (w *warmObserver) Close() error                              { return nil }

// warmStore reads every key and value of st once, the metadata and the
// keyspaces (kv.Keyspaces stores) or the whole key range: each side of a
// comparison that runs for a time (a query step) starts on caches as warm
// as the other's, instead of each paying for the cold start over its own
// count of operations.
func warmStore(st kv.Store, keyspaces [][]byte) error {
	ranges := [][2][]byte{{nil, nil}}
	if _, ok := st.(kv.Keyspaces); ok {
		ranges = [][2][]byte{{{0, 0, 0, 0}, {0, 0, 0, 1}}}
		for _, p := range keyspaces {
			end, _ := keyenc.PrefixEnd(nil, p)
			ranges = append(ranges, [2][]byte{p, end})
		}
	}
	v, err := st.NewView()
	if err != nil {
		return fmt.Errorf("warm the store: %w", err)
	}
	defer v.Close()
	n := 0
	for _, r := range ranges {
		it, err := v.NewIter(r[0], r[1])
		if err != nil {
			return fmt.Errorf("warm the store: %w", err)
		}
		for ok := it.First(); ok; ok = it.Next() {
			n += len(it.Key()) + len(it.Value())
		}
		err = it.Error()
		if cerr := it.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("warm the store: %w", err)
		}
	}
	if n == 0 {
		return errors.New("warm the store: it holds nothing")
	}
	return nil
}

// runLoad runs the workload's steps on eng through the runner, step (the
// measured one) last, and returns step's summary and its CPU per row,
// over the step and, with quiesce, until the engine was quiet after it.
func runLoad(ctx context.Context, b testing.TB, eng string, opts map[string]string, step string, cfg any, newW func() (workload.Workload, error), dataDir string, quiesce bool, extra ...runner.ObserverFactory) (*loadRun, error) {
	q := &quietObserver{step: step, skip: !quiesce}
	res, err := runner.Run(ctx, runner.Options{
		Variants: []model.Variant{runner.BareVariant(eng, opts)}, EngineOpts: opts, Out: b.TempDir(), DataDir: dataDir, Interval: time.Second, Seed: 1,
		Config: cfg, NewWorkload: newW,
		// The wait before the step first, then the sampler, whose StepStop
		// closes the step's figures before the quiet observer's waits for
		// the engine. (The factories run in this order, before any step.)
		// The extra observers' StepStart runs first, untimed too.
		Observers: append(append([]runner.ObserverFactory{}, extra...), q.before(), sysmetrics.Factory(io.Discard), q.factory()),
	})
	if err == nil && res[0].Err != nil {
		err = res[0].Err
	}
	if err != nil {
		return nil, err
	}
	if q.err != nil {
		return nil, fmt.Errorf("quiesce after %s: %w", step, q.err)
	}
	bundle, err := results.Read(res[0].Dir)
	if err != nil {
		return nil, err
	}
	st := bundle.Steps[step]
	if st == nil || !st.Complete || st.Errors != 0 || stepUnits(st) <= 0 {
		return nil, fmt.Errorf("step %+v", st)
	}
	var cost *results.OpCost
	if st.Metrics != nil {
		cost = st.Metrics.PerOp[st.MainOp]
	}
	if cost == nil || cost.CPUUs == nil {
		return nil, errors.New("the step has no CPU per row (/proc not readable?)")
	}
	units := float64(stepUnits(st))
	return &loadRun{st: st, cpu: *cost.CPUUs, ownCPU: q.stepUs / units, quietCPU: q.quietUs / units, proc: q.proc, ticks: q.ticks, start: q.start, stop: q.stop}, nil
}

// stepUnits is what a step's CPU is counted per, as the bundle counts it:
// its main operation's done count (rows inserted in a load or churn step,
// queries in a query step, requests in LinkBench's request step).
func stepUnits(st *results.Step) int64 {
	if op := st.Ops[st.MainOp]; op != nil {
		return op.Done()
	}
	return 0
}

// replay writes the recorded batches into a fresh store of eng, each
// stream in a goroutine of its own, and returns the seconds and process CPU
// (µs) from the first write to the last commit, the CPU until the
// store's background work has finished too (0 when it cannot tell), what
// the engine's own counters counted until then (engineTickers), and what
// the process counted to the last commit (procStats).
func replay(b testing.TB, eng string, opts map[string]string, rec *recorder, dir string) storeReplay {
	db, raw := openBare(b, eng, opts, dir)
	defer db.Close()
	if ks, ok := raw.(kv.Keyspaces); ok {
		for _, k := range rec.keyspaces {
			if err := ks.CreateKeyspace(k.prefix, k.name); err != nil {
				b.Fatal(err)
			}
		}
	}
	// The schema first, untimed (as the workload's Prepare is), in commit
	// order: several streams write the same metadata keys.
	var meta []*recBatchRec
	for _, s := range rec.streams {
		for i := range s.batches {
			if s.batches[i].meta {
				meta = append(meta, &s.batches[i])
			}
		}
	}
	slices.SortFunc(meta, func(a, b *recBatchRec) int { return cmp.Compare(a.seq, b.seq) })
	mb := raw.NewBatch()
	for _, m := range meta {
		if err := replayBatch(mb, m.buf); err != nil {
			b.Fatal(err)
		}
	}
	mb.Close()
	// The rows: every stream at once, each in its order (a load writes
	// each key once, so the streams' interleaving cannot change the
	// result), or with FLOOR_LOAD_SERIAL=1 one after the other.
	runtime.GC()
	tick0 := engineTickers(db)
	var out storeReplay
	p0 := procStatsNow()
	cpu0, start := cpuNow(), time.Now()
	errs := make([]error, len(rec.streams))
	var wg sync.WaitGroup
	for i, s := range rec.streams {
		play := func() {
			batch := raw.NewBatch()
			defer batch.Close()
			errs[i] = s.replay(batch, func(r *recBatchRec) bool { return !r.meta })
		}
		if loadSerial() {
			play()
			continue
		}
		wg.Go(play)
	}
	wg.Wait()
	out.secs, out.cpuUs, out.proc = time.Since(start).Seconds(), cpuNow()-cpu0, procStatsNow().since(p0)
	out.from, out.to = start.UTC(), start.Add(time.Duration(out.secs*float64(time.Second))).UTC()
	if err := errors.Join(errs...); err != nil {
		b.Fatalf("replay on %s: %v", eng, err)
	}
	if q, ok := db.(model.Quiescer); ok {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		_, err := q.Quiesce(ctx)
		cancel()
		if err != nil {
			b.Fatalf("replay on %s: quiesce: %v", eng, err)
		}
		out.quietUs = cpuNow() - cpu0
	}
	out.ticks = tickerDelta(tick0, engineTickers(db))
	return out
}

// utcWindow formats w as "15:04:05.000 to 15:04:05.000 UTC".
func utcWindow(w [2]time.Time) string {
	return w[0].UTC().Format("15:04:05.000") + " to " + w[1].UTC().Format("15:04:05.000") + " UTC"
}

// storeReplay is what replay measured.
type storeReplay struct {
	secs, cpuUs, quietUs float64
	from, to             time.Time // to the last commit, for a check by a sampler outside the process
	ticks                map[string]int64
	proc                 procStats
}

// TestReplayWritesWhatRumbenchWrote: a LinkBench load recorded on each kv
// engine and replayed into a fresh store leaves both stores with the same
// keys and values, metadata included, so the floor's store-alone rate is
// for exactly the writes rumbench made. The same holds for the kv replay
// (the connections' inserts replayed through a fresh kv DB), whose calls,
// recorded as rumbench's were, are the recorded ones, call for call. The
// engines cover every shape of the recorder's wrapper (plain, with
// keyspaces and their own transactions); an l.i0 of 2 clients covers
// indexes created before the rows.
func TestReplayWritesWhatRumbenchWrote(t *testing.T) {
	for _, tc := range []struct {
		name, eng string
		opts      map[string]string
		li0       bool // an l.i0 instead of the LinkBench load
		warm      bool // FLOOR_KV_WARM: the kv replay reads the rows first
		serial    bool // FLOOR_LOAD_SERIAL: the replays play one stream after another
	}{
		{"pebble-l.i0", "pebble", nil, true, false, false},
		{"pebble", "pebble", nil, false, false, false},
		{"pebble-warm", "pebble", nil, false, true, false},
		{"bbolt", "bbolt", nil, false, false, false},
		{"bbolt-serial", "bbolt", nil, false, false, true},
		{"rocksdb", "rocksdb", nil, false, false, false},
		{"rocksdb-cf-per-index", "rocksdb", map[string]string{"column_family_per_index": "true"}, false, false, false},
		{"wiredtiger", "wiredtiger", nil, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := tc.eng
			if tc.warm {
				t.Setenv("FLOOR_KV_WARM", "1")
			}
			if tc.serial {
				t.Setenv("FLOOR_LOAD_SERIAL", "1")
			}
			if _, err := engine.Lookup(eng); err != nil {
				t.Skip(err)
			}
			lc := linkbench.DefaultConfig()
			lc.Nodes, lc.MaxDegree, lc.RowsPerCommit = 3000, 100, 100
			lc.Steps = []string{linkbench.StepLoad}
			step, cfg, newW := linkbench.StepLoad, any(lc), func() (workload.Workload, error) { return linkbench.New(lc) }
			if tc.li0 {
				ic := ibench.Config{Clients: 2, Rows: 5000, Indexes: 3, PadMin: 10, PadMax: 20, PadRandomPct: 50, Seed: 1, Steps: []string{ibench.StepLoad}}
				step, cfg, newW = ibench.StepLoad, ic, func() (workload.Workload, error) { return ibench.New(ic) }
			}
			modelDir, replayDir, kvDir := t.TempDir(), t.TempDir(), t.TempDir()
			ca, err := newArena(64 << 20)
			if err != nil {
				t.Fatal(err)
			}
			defer ca.free()
			check := &kvReplayCheck{rec: newModelRecorder(ca)}
			l := recordLoad(t, eng, tc.opts, step, 64<<20, 64<<20, cfg, newW, modelDir, replayDir, kvDir, check, nil)
			if check.err != nil {
				t.Fatalf("kv replay: %v", check.err)
			}
			if tc.warm != (l.kv.readUs > 0) {
				t.Fatalf("FLOOR_KV_WARM %v: the rows' read took %.0f µs of CPU", tc.warm, l.kv.readUs)
			}
			want, got := storeContents(t, eng, tc.opts, modelDir, l.keyspaces), storeContents(t, eng, tc.opts, replayDir, l.keyspaces)
			if l.rows == 0 || len(want) < int(l.rows) {
				t.Fatalf("the load inserted %d rows, the store holds %d keys", l.rows, len(want))
			}
			if len(got) != len(want) {
				t.Fatalf("replayed store has %d keys, rumbench's %d", len(got), len(want))
			}
			for i := range want {
				if !bytes.Equal(got[i][0], want[i][0]) || !bytes.Equal(got[i][1], want[i][1]) {
					t.Fatalf("entry %d: replayed %x=%x, rumbench wrote %x=%x", i, got[i][0], got[i][1], want[i][0], want[i][1])
				}
			}
			kvGot := storeContents(t, eng, tc.opts, kvDir, l.keyspaces)
			if len(kvGot) != len(want) {
				t.Fatalf("the kv replay's store has %d keys, rumbench's %d", len(kvGot), len(want))
			}
			for i := range want {
				if !bytes.Equal(kvGot[i][0], want[i][0]) || !bytes.Equal(kvGot[i][1], want[i][1]) {
					t.Fatalf("entry %d: the kv replay wrote %x=%x, rumbench %x=%x", i, kvGot[i][0], kvGot[i][1], want[i][0], want[i][1])
				}
			}
			t.Logf("%d rows, %d keys identical in the store replay and the kv replay (%d keyspaces; the kv replay made the %d schema calls and the inserts of %d streams as recorded)",
				l.rows, len(want), len(l.keyspaces), len(check.rec.ddl), l.streams)
		})
	}
}

// storeContents opens eng on dir and returns every key and value: one
// iteration, or on a store with keyspaces the metadata (table id 0) and
// then each keyspace's range.
func storeContents(t *testing.T, eng string, opts map[string]string, dir string, keyspaces [][]byte) [][2][]byte {
	db, st := openBare(t, eng, opts, dir)
	defer db.Close()
	if _, ok := st.(kv.Keyspaces); !ok {
		return kvtest.Contents(t, st, nil, nil)
	}
	out := kvtest.Contents(t, st, []byte{0, 0, 0, 0}, []byte{0, 0, 0, 1})
	for _, p := range keyspaces {
		end, _ := keyenc.PrefixEnd(nil, p)
		out = append(out, kvtest.Contents(t, st, p, end)...)
	}
	return out
}

// openBare opens eng on dir and returns the DB and the store under its kv
// layer.
func openBare(tb testing.TB, eng string, opts map[string]string, dir string) (model.DB, kv.Store) {
	var st kv.Store
	ctx := kv.WithStoreWrapper(context.Background(), func(s kv.Store) kv.Store { st = s; return s })
	db, err := engine.Open(ctx, eng, model.Config{DataDir: dir, Options: opts})
	if err != nil {
		tb.Fatal(err)
	}
	return db, st
}

// ---- the recorder ----

const (
	opSet byte = iota
	opDelete
)

// recorder wraps the store the kv layer is given (kv.WithStoreWrapper) and
// keeps every committed batch, per batch object: the kv layer keeps one
// batch per connection, so a stream is a connection's writes in order.
type recorder struct {
	arena     *arena
	mu        sync.Mutex
	streams   []*stream
	keyspaces []keyspace
	// unrecorded counts range deletes, which the replay does not repeat.
	// A load makes none.
	unrecorded atomic.Int64
	seq        atomic.Int64 // commits so far
}

type keyspace struct {
	prefix []byte
	name   string
}

// stream holds a connection's committed batches, each a run of records
// (op, uvarint key length, key, and for a set the uvarint value length and
// value) in the recorder's arena.
type stream struct {
	batches []recBatchRec
	writes  int64
	bytes   int64
}

// recBatchRec is one committed batch: its records, its place in the order
// of all commits, and whether it wrote the kv layer's metadata (table id 0).
type recBatchRec struct {
	buf  []byte
	seq  int64
	meta bool
}

// arena is the recording's memory: mapped outside the Go heap and faulted
// in before the run (MAP_POPULATE), so recording neither grows the heap the
// run's garbage collector works on nor takes page faults while it is timed
// (growing slices did both and cut the recorded load's rate by half).
type arena struct {
	mem  []byte
	next atomic.Int64
}

const arenaChunk = 4 << 20

// errArenaFull fails the recorded insert, and with it the run.
var errArenaFull = errors.New("the recording arena is full")

func newArena(size int64) (*arena, error) {
	size = max(size, 16*arenaChunk)
	mem, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("map a %d MB recording arena: %w", size>>20, err)
	}
	return &arena{mem: mem}, nil
}

func (a *arena) chunk() []byte {
	off := a.next.Add(arenaChunk) - arenaChunk
	if off+arenaChunk > int64(len(a.mem)) {
		return nil
	}
	return a.mem[off : off+arenaChunk : off+arenaChunk]
}

func (a *arena) free() { syscall.Munmap(a.mem) }

func (r *recorder) totals() (writes, bytes int64) {
	for _, s := range r.streams {
		writes += s.writes
		bytes += s.bytes
	}
	return writes, bytes
}

func (r *recorder) wrap(st kv.Store) kv.Store {
	base := &recStore{Store: st, r: r}
	_, ks := st.(kv.Keyspaces)
	_, cs := st.(kv.ConcurrentStore)
	switch {
	case ks && cs:
		return recKeyspacesConcurrent{recKeyspaces{base}}
	case ks:
		return recKeyspaces{base}
	case cs:
		return recConcurrent{base}
	}
	return base
}

// recStore passes everything to the store; its batches record. It exposes
// the optional interfaces of the store it wraps (recKeyspaces and so on),
// so the kv layer takes the same paths as without it.
type recStore struct {
	kv.Store
	r *recorder
}

func (s *recStore) NewBatch() kv.Batch {
	b := s.Store.NewBatch()
	return &recBatch{recWriter: s.r.newWriter(b), b: b}
}

func (r *recorder) newWriter(inner kv.Writer) *recWriter {
	st := &stream{}
	r.mu.Lock()
	r.streams = append(r.streams, st)
	r.mu.Unlock()
	return &recWriter{inner: inner, s: st, a: r.arena, seq: &r.seq}
}

func (s *recStore) Begin(readOwnWrites bool) (kv.Txn, error) {
	t, err := s.Store.Begin(readOwnWrites)
	if err != nil {
		return nil, err
	}
	return &recTxn{recWriter: s.r.newWriter(t), t: t}, nil
}

func (s *recStore) DeleteRange(start, end []byte) error {
	s.r.unrecorded.Add(1)
	return s.Store.DeleteRange(start, end)
}

type recKeyspaces struct{ *recStore }

func (s recKeyspaces) CreateKeyspace(prefix []byte, name string) error {
	s.r.mu.Lock()
	s.r.keyspaces = append(s.r.keyspaces, keyspace{append([]byte(nil), prefix...), name})
	s.r.mu.Unlock()
	return s.Store.(kv.Keyspaces).CreateKeyspace(prefix, name)
}

type recConcurrent struct{ *recStore }

func (s recConcurrent) BeginUpdate() (kv.UpdateTxn, error) { return s.beginUpdate() }

func (s *recStore) beginUpdate() (kv.UpdateTxn, error) {
	t, err := s.Store.(kv.ConcurrentStore).BeginUpdate()
	if err != nil {
		return nil, err
	}
	return &recUpdateTxn{recTxn{recWriter: s.r.newWriter(t), t: t}, t}, nil
}

type recKeyspacesConcurrent struct{ recKeyspaces }

func (s recKeyspacesConcurrent) BeginUpdate() (kv.UpdateTxn, error) { return s.beginUpdate() }

// recWriter records one batch's or transaction's writes in its stream; a
// failed commit, a reset or a rollback drops the records since the last
// commit. The pending batch is cur[start:pos].
type recWriter struct {
	inner      kv.Writer
	s          *stream
	a          *arena
	seq        *atomic.Int64
	cur        []byte
	start, pos int
	n, m       int64
	meta       bool
}

// room makes room for need more bytes of the pending batch, moving it to a
// fresh chunk when the current one is full.
func (w *recWriter) room(need int) error {
	if w.pos+need <= len(w.cur) {
		return nil
	}
	c := w.a.chunk()
	if c == nil || w.pos-w.start+need > len(c) {
		return errArenaFull
	}
	w.pos = copy(c, w.cur[w.start:w.pos])
	w.cur, w.start = c, 0
	return nil
}

func (w *recWriter) put(op byte, key, value []byte) error {
	if err := w.room(1 + 2*binary.MaxVarintLen64 + len(key) + len(value)); err != nil {
		return err
	}
	w.cur[w.pos] = op
	w.pos++
	w.pos += binary.PutUvarint(w.cur[w.pos:], uint64(len(key)))
	w.pos += copy(w.cur[w.pos:], key)
	if op == opSet {
		w.pos += binary.PutUvarint(w.cur[w.pos:], uint64(len(value)))
		w.pos += copy(w.cur[w.pos:], value)
	}
	w.n++
	w.m += int64(len(key) + len(value))
	w.meta = w.meta || len(key) >= 4 && key[0]|key[1]|key[2]|key[3] == 0
	return nil
}

// committed ends the batch in the stream after a successful commit, or
// drops it after a failed one.
func (w *recWriter) committed(err error) error {
	if err != nil {
		w.drop()
		return err
	}
	if w.pos > w.start {
		w.s.batches = append(w.s.batches, recBatchRec{buf: w.cur[w.start:w.pos:w.pos], seq: w.seq.Add(1), meta: w.meta})
		w.start = w.pos
		w.s.writes += w.n
		w.s.bytes += w.m
	}
	w.n, w.m, w.meta = 0, 0, false
	return nil
}

func (w *recWriter) drop() {
	w.pos = w.start
	w.n, w.m, w.meta = 0, 0, false
}

// Set and Delete write through to the store's batch or transaction, then
// record.
func (w *recWriter) Set(key, value []byte) error {
	if err := w.inner.Set(key, value); err != nil {
		return err
	}
	return w.put(opSet, key, value)
}

func (w *recWriter) Delete(key []byte) error {
	if err := w.inner.Delete(key); err != nil {
		return err
	}
	return w.put(opDelete, key, nil)
}

type recBatch struct {
	*recWriter
	b kv.Batch
}

func (b *recBatch) Len() int { return b.b.Len() }
func (b *recBatch) Commit() error {
	err := b.b.Commit()
	if errors.Is(err, kv.ErrConflict) {
		return err // the batch keeps its writes for the kv layer's retry (kv.Batch), and so does the record
	}
	return b.committed(err)
}
func (b *recBatch) Close() error { return b.b.Close() }
func (b *recBatch) Reset() {
	b.b.Reset()
	b.drop()
}

type recTxn struct {
	*recWriter
	t kv.Txn
}

func (t *recTxn) Get(key, dst []byte) ([]byte, bool, error)    { return t.t.Get(key, dst) }
func (t *recTxn) NewIter(lower, upper []byte) (kv.Iter, error) { return t.t.NewIter(lower, upper) }
func (t *recTxn) Commit() error                                { return t.committed(t.t.Commit()) }
func (t *recTxn) Rollback() error {
	t.drop()
	return t.t.Rollback()
}

type recUpdateTxn struct {
	recTxn
	u kv.UpdateTxn
}

func (t *recUpdateTxn) GetForUpdate(key, dst []byte) ([]byte, bool, error) {
	return t.u.GetForUpdate(key, dst)
}

// replay writes the stream's batches that pass keep through batch and
// commits each.
func (s *stream) replay(batch kv.Batch, keep func(*recBatchRec) bool) error {
	for i := range s.batches {
		if keep(&s.batches[i]) {
			if err := replayBatch(batch, s.batches[i].buf); err != nil {
				return err
			}
		}
	}
	return nil
}

func replayBatch(batch kv.Batch, buf []byte) error {
	pos := 0
	next := func() []byte {
		n, w := binary.Uvarint(buf[pos:])
		pos += w
		v := buf[pos : pos+int(n)]
		pos += int(n)
		return v
	}
	for pos < len(buf) {
		op := buf[pos]
		pos++
		key := next()
		var err error
		if op == opSet {
			err = batch.Set(key, next())
		} else {
			err = batch.Delete(key)
		}
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
	}
	if err := batch.Commit(); err != nil {
		return fmt.Errorf("replay: commit: %w", err)
	}
	return nil
}
