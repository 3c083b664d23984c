package floorbench

import (
	"cmp"
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"rumbench/internal/engine"
	"rumbench/internal/engine/dbserver"
	sqleng "rumbench/internal/engine/sql"
	mysqleng "rumbench/internal/engine/sql/mysql"
	pgeng "rumbench/internal/engine/sql/postgres"
	"rumbench/internal/enginetest"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/testdb"
	"rumbench/internal/workload"
	"rumbench/internal/workload/ibench"
)

// BenchmarkFloor compares, per engine and step, the client CPU per
// operation of a bare driver loop with that of the rumbench step, on the
// same server and table, in this process (scripts/floor.sh runs it). Each
// step runs as rounds of (bare, step) pairs, alternating which goes first;
// the figures are medians over the rounds. Client CPU is this process's
// user+sys time (getrusage) over the phase: the server runs elsewhere.
//
// Sizes: FLOOR_ROWS (l.i0 rows per phase, default 50000), FLOOR_CHURN
// (l.i1 rows per phase, default 20000), FLOOR_SECONDS (query phase length,
// default 5), FLOOR_ROUNDS (default 3), FLOOR_ENGINES (default
// postgres,innodb), FLOOR_STEPS (default l.i0,l.i1,qr100,qp100),
// FLOOR_BARES (the bare loops to run, by name: C, pgx, pgconn, driver;
// default all).
func BenchmarkFloor(b *testing.B) {
	engines := envList("FLOOR_ENGINES", "postgres,innodb")
	for _, eng := range engines {
		b.Run(eng, func(b *testing.B) { floorEngine(b, eng) })
	}
}

// floor settings, from the environment.
type settings struct {
	rows, churn int64
	seconds     float64
	rounds      int
	steps       []string
}

func envInt(k string, def int64) int64 {
	if v := os.Getenv(k); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
			return n
		}
	}
	return def
}

func envList(k, def string) []string {
	v := os.Getenv(k)
	if v == "" {
		v = def
	}
	return strings.Split(v, ",")
}

// envOpts parses the environment variable k, engine options as
// key=value[,key=value...] (empty: none).
func envOpts(k string) (map[string]string, error) {
	v := os.Getenv(k)
	if v == "" {
		return nil, nil
	}
	opts := map[string]string{}
	for _, kv := range strings.Split(v, ",") {
		key, val, ok := strings.Cut(kv, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("%s: %q is not key=value", k, kv)
		}
		opts[key] = val
	}
	return opts, nil
}

// dbName is the benchmark's database on the shared servers, this
// process's own (the rumbench binary's run uses dbName_bin).
var dbName = "rumbench_test_floor" + testdb.Suffix()

// result is one phase's outcome.
type result struct {
	cpuUs float64 // client CPU, µs
	ops   int64
}

func (r result) perOp() float64 { return r.cpuUs / float64(max(r.ops, 1)) }

func cpuNow() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e3
}

// procStats is what the kernel and the Go runtime count for this process
// at one moment: CPU µs in system mode (getrusage; cpuNow has user and
// system together), page faults (minor: a page mapped without a read,
// e.g. fresh heap memory or a file's page already in the page cache) and
// context switches (voluntary: a wait, e.g. on a futex), bytes and
// objects allocated on the Go heap, collections, and the collector's CPU
// µs. Taken on both sides of a floor, their differences say where the CPU
// one side spends above the other goes: the kernel (page faults, futex
// wake-ups) or the collector.
type procStats struct {
	sysUs, minFaults, switches, allocBytes, allocs, gcs, gcUs float64
}

func procStatsNow() procStats {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/allocs:objects"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	v := func(i int) float64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return float64(s[i].Value.Uint64())
	}
	return procStats{sysUs: float64(ru.Stime.Nano()) / 1e3, minFaults: float64(ru.Minflt), switches: float64(ru.Nvcsw + ru.Nivcsw),
		allocBytes: v(0), allocs: v(1), gcs: v(2), gcUs: gcCPUNow()}
}

// since is what was counted from b to p.
func (p procStats) since(b procStats) procStats {
	return procStats{p.sysUs - b.sysUs, p.minFaults - b.minFaults, p.switches - b.switches, p.allocBytes - b.allocBytes, p.allocs - b.allocs, p.gcs - b.gcs, p.gcUs - b.gcUs}
}

// plus is p and o counted together.
func (p procStats) plus(o procStats) procStats {
	return procStats{p.sysUs + o.sysUs, p.minFaults + o.minFaults, p.switches + o.switches, p.allocBytes + o.allocBytes, p.allocs + o.allocs, p.gcs + o.gcs, p.gcUs + o.gcUs}
}

// engineTickers is the engine's own event counters, nil for an engine
// without them: RocksDB's statistics tickers by name (model.StatsReporter),
// else the engine's cumulative counters (model.InternalsReporter's Raw:
// bbolt's page writes, splits and spills, pebble's and WiredTiger's own).
func engineTickers(db model.DB) map[string]int64 {
	if sr, ok := db.(model.StatsReporter); ok {
		if st, err := sr.Stats(context.Background()); err == nil {
			if t, ok := st["tickers"].(map[string]int64); ok {
				return t
			}
		}
	}
	ir, ok := db.(model.InternalsReporter)
	if !ok {
		return nil
	}
	in, err := ir.Internals(context.Background())
	if err != nil || len(in.Raw) == 0 {
		return nil
	}
	t := make(map[string]int64, len(in.Raw))
	for k, v := range in.Raw {
		t[k] = int64(v)
	}
	return t
}

// tickerDelta is what each ticker counted from a to b.
func tickerDelta(a, b map[string]int64) map[string]int64 {
	if b == nil {
		return nil
	}
	d := make(map[string]int64, len(b))
	for k, v := range b {
		d[k] = v - a[k]
	}
	return d
}

// tickersApart formats, per unit of each side's count, the n tickers that
// differ the most between the two sides (a over b, either way), e.g.
// "number.iter.skip 41.2/33.0": where the engine did more work on one side
// for the same calls.
func tickersApart(a map[string]int64, na float64, b map[string]int64, nb float64, n int) string {
	type diff struct {
		k     string
		x, y  float64
		ratio float64
	}
	var ds []diff
	for k, va := range a {
		x, y := float64(va)/na, float64(b[k])/nb
		if max(x, y) < 0.1 { // rarer than one event in ten units
			continue
		}
		r := (x + 1e-9) / (y + 1e-9)
		if r < 1 {
			r = 1 / r
		}
		ds = append(ds, diff{k, x, y, r})
	}
	slices.SortFunc(ds, func(p, q diff) int { return cmp.Compare(q.ratio, p.ratio) })
	var parts []string
	for _, d := range ds[:min(n, len(ds))] {
		parts = append(parts, fmt.Sprintf("%s %.3g/%.3g", d.k, d.x, d.y))
	}
	return strings.Join(parts, ", ")
}

// per formats p per unit of n: system µs, page faults and context
// switches, Go heap bytes and allocations, the collector's µs, and the
// collections in all.
func (p procStats) per(n float64) string {
	return fmt.Sprintf("system %.2f µs (%.3f minor page faults, %.3f context switches), %.0f B and %.2f allocations on the Go heap, collector %.2f µs (%.0f collections)",
		p.sysUs/n, p.minFaults/n, p.switches/n, p.allocBytes/n, p.allocs/n, p.gcUs/n, p.gcs)
}

// threadCPUNow is the calling OS thread's CPU time in µs (user + system;
// RUSAGE_THREAD): with the goroutine locked to its thread, the work done
// on the operation's own path, the store's background threads and the
// Go runtime's other threads left out.
func threadCPUNow() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e3
}

// rusageThread is Linux's RUSAGE_THREAD, which package syscall does not name.
const rusageThread = 1

// measured runs fn after a GC (so one phase's garbage is not collected on
// the next one's time) and returns the process CPU it used.
func measured(fn func() (int64, error)) (result, error) {
	runtime.GC()
	c0 := cpuNow()
	n, err := fn()
	return result{cpuUs: cpuNow() - c0, ops: n}, err
}

// bareConn is the bare driver loop's connection: the driver's own
// interface, statements sent as the rumbench Conn sends them.
type bareConn interface {
	insert(ctx context.Context, q string, t *model.Table, rows []model.Row) error
	exec(ctx context.Context, q string, args ...int64) (int64, error)
	// query runs q with int arguments and returns the number of rows.
	query(ctx context.Context, q string, types []model.Type, args ...int64) (int, error)
	close()
}

// target is one engine's server and its bare loops: each bare is a way of
// driving the server with no rumbench code, named for the report.
type target struct {
	engine string
	dsn    string
	d      sqleng.Dialect
	bares  []bare
}

type bare struct {
	name string
	dial func(ctx context.Context) (bareConn, error)
	// ext: the C loop, a subprocess (external_test.go).
	ext bool
}

func targetFor(b *testing.B, eng string) target {
	switch eng {
	case "postgres":
		dsn := dbserver.DSN("", pgeng.EnvDSN, pgeng.DefaultDSN)
		config := func() (*pgx.ConnConfig, error) {
			cfg, err := pgx.ParseConfig(dsn)
			if err != nil {
				return nil, err
			}
			cfg.Database = dbName
			return cfg, nil
		}
		// Two bare loops: pgx's own interface, as an application would
		// use it, and the floor under it, pgconn with prepared statements
		// and binary arguments (what rumbench's workers use).
		return target{engine: eng, dsn: dsn, d: pgeng.Dialect{}, bares: []bare{
			{name: "pgx", dial: func(ctx context.Context) (bareConn, error) {
				cfg, err := config()
				if err != nil {
					return nil, err
				}
				c, err := pgx.ConnectConfig(ctx, cfg)
				if err != nil {
					return nil, err
				}
				return &pgBare{c: c}, nil
			}},
			{name: "pgconn", dial: func(ctx context.Context) (bareConn, error) {
				cfg, err := config()
				if err != nil {
					return nil, err
				}
				c, err := pgconn.ConnectConfig(ctx, &cfg.Config)
				if err != nil {
					return nil, err
				}
				return &pgWire{c: c, stmts: map[string]*pgconn.StatementDescription{}, rfmts: map[string][]int16{}}, nil
			}},
		}}
	case "innodb", "myrocks":
		dsn := dbserver.DSN("", mysqleng.EnvDSN, mysqleng.DefaultDSN)
		en := "InnoDB"
		if eng == "myrocks" {
			en = "ROCKSDB"
		}
		return target{engine: eng, dsn: dsn, d: mysqleng.Dialect{Engine: en}, bares: []bare{{name: "driver", dial: func(ctx context.Context) (bareConn, error) {
			cfg, err := mysql.ParseDSN(dsn)
			if err != nil {
				return nil, err
			}
			cfg.DBName = dbName
			cfg.InterpolateParams = true
			cfg.ClientFoundRows = true
			conn, err := mysql.NewConnector(cfg)
			if err != nil {
				return nil, err
			}
			c, err := conn.Connect(ctx)
			if err != nil {
				return nil, err
			}
			return &myBare{c: c}, nil
		}}}}
	}
	b.Fatalf("no floor target for engine %s", eng)
	return target{}
}

// pgBare is pgx's native interface with its default statement cache: each
// statement is prepared on first use and executed by name after that.
type pgBare struct {
	c    *pgx.Conn
	args []any
	dest []any
	ints []int64
	strs [][]byte
}

func (p *pgBare) insert(ctx context.Context, q string, t *model.Table, rows []model.Row) error {
	p.args = p.args[:0]
	for _, r := range rows {
		for i, v := range r {
			if t.Columns[i].Type == model.String {
				p.args = append(p.args, v.Bytes)
			} else {
				p.args = append(p.args, v.Int)
			}
		}
	}
	_, err := p.c.Exec(ctx, q, p.args...)
	return err
}

func (p *pgBare) exec(ctx context.Context, q string, args ...int64) (int64, error) {
	p.args = p.args[:0]
	for _, a := range args {
		p.args = append(p.args, a)
	}
	tag, err := p.c.Exec(ctx, q, p.args...)
	return tag.RowsAffected(), err
}

func (p *pgBare) query(ctx context.Context, q string, types []model.Type, args ...int64) (int, error) {
	p.args = p.args[:0]
	for _, a := range args {
		p.args = append(p.args, a)
	}
	if len(p.dest) != len(types) {
		p.ints, p.strs, p.dest = make([]int64, len(types)), make([][]byte, len(types)), make([]any, len(types))
		for i, typ := range types {
			if typ == model.String {
				p.dest[i] = &p.strs[i]
			} else {
				p.dest[i] = &p.ints[i]
			}
		}
	}
	rows, err := p.c.Query(ctx, q, p.args...)
	if err != nil {
		return 0, err
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(p.dest...); err != nil {
			rows.Close()
			return n, err
		}
		n++
	}
	rows.Close()
	return n, rows.Err()
}

func (p *pgBare) close() { p.c.Close(context.Background()) }

// pgWire is the floor under pgx: pgconn, each statement prepared once,
// int8 arguments and results in binary, strings as bytes, results decoded
// in place without copies.
type pgWire struct {
	c      *pgconn.PgConn
	stmts  map[string]*pgconn.StatementDescription
	rfmts  map[string][]int16 // per statement: every result column binary
	params [][]byte
	ints   []byte
	fmts   []int16
}

func (p *pgWire) prepared(ctx context.Context, q string) (*pgconn.StatementDescription, error) {
	if sd, ok := p.stmts[q]; ok {
		return sd, nil
	}
	sd, err := p.c.Prepare(ctx, fmt.Sprintf("f%d", len(p.stmts)), q, nil)
	if err != nil {
		return nil, err
	}
	p.stmts[q] = sd
	rfmt := make([]int16, len(sd.Fields))
	for i := range rfmt {
		rfmt[i] = 1
	}
	p.rfmts[q] = rfmt
	return sd, nil
}

// bind encodes n values: str(i) gives value i's bytes when it is a string,
// num(i) its integer otherwise.
func (p *pgWire) bind(n int, str func(i int) ([]byte, bool), num func(i int) int64) {
	p.params, p.ints, p.fmts = p.params[:0], p.ints[:0], p.fmts[:0]
	for i := range n {
		if _, ok := str(i); !ok {
			p.ints = binary.BigEndian.AppendUint64(p.ints, uint64(num(i)))
		}
	}
	off := 0
	for i := range n {
		p.fmts = append(p.fmts, 1)
		if b, ok := str(i); ok {
			p.params = append(p.params, b)
			continue
		}
		p.params = append(p.params, p.ints[off:off+8:off+8])
		off += 8
	}
}

func (p *pgWire) insert(ctx context.Context, q string, t *model.Table, rows []model.Row) error {
	sd, err := p.prepared(ctx, q)
	if err != nil {
		return err
	}
	ncol := len(t.Columns)
	p.bind(len(rows)*ncol, func(i int) ([]byte, bool) {
		if t.Columns[i%ncol].Type != model.String {
			return nil, false
		}
		return rows[i/ncol][i%ncol].Bytes, true
	}, func(i int) int64 { return rows[i/ncol][i%ncol].Int })
	_, err = p.c.ExecStatement(ctx, sd, p.params, p.fmts, nil).Close()
	return err
}

func (p *pgWire) intArgs(args []int64) {
	p.bind(len(args), func(int) ([]byte, bool) { return nil, false }, func(i int) int64 { return args[i] })
}

func (p *pgWire) exec(ctx context.Context, q string, args ...int64) (int64, error) {
	sd, err := p.prepared(ctx, q)
	if err != nil {
		return 0, err
	}
	p.intArgs(args)
	tag, err := p.c.ExecStatement(ctx, sd, p.params, p.fmts, nil).Close()
	return tag.RowsAffected(), err
}

func (p *pgWire) query(ctx context.Context, q string, types []model.Type, args ...int64) (int, error) {
	sd, err := p.prepared(ctx, q)
	if err != nil {
		return 0, err
	}
	p.intArgs(args)
	rr := p.c.ExecStatement(ctx, sd, p.params, p.fmts, p.rfmts[q])
	n := 0
	var sum int64
	for rr.NextRow() {
		for i, v := range rr.Values() {
			if types[i] != model.String && len(v) == 8 {
				sum += int64(binary.BigEndian.Uint64(v))
			}
		}
		n++
	}
	_, err = rr.Close()
	_ = sum
	return n, err
}

func (p *pgWire) close() { p.c.Close(context.Background()) }

// myBare is go-sql-driver/mysql's driver.Conn itself (no database/sql),
// with client-side interpolation: one text query per statement.
type myBare struct {
	c    driver.Conn
	nv   []driver.NamedValue
	dest []driver.Value
}

func (m *myBare) insert(ctx context.Context, q string, t *model.Table, rows []model.Row) error {
	m.nv = m.nv[:0]
	for _, r := range rows {
		for i, v := range r {
			var val driver.Value = v.Int
			if t.Columns[i].Type == model.String {
				val = v.Bytes
			}
			m.nv = append(m.nv, driver.NamedValue{Ordinal: len(m.nv) + 1, Value: val})
		}
	}
	_, err := m.c.(driver.ExecerContext).ExecContext(ctx, q, m.nv)
	return err
}

func (m *myBare) ints(args []int64) {
	m.nv = m.nv[:0]
	for i, a := range args {
		m.nv = append(m.nv, driver.NamedValue{Ordinal: i + 1, Value: a})
	}
}

func (m *myBare) exec(ctx context.Context, q string, args ...int64) (int64, error) {
	m.ints(args)
	res, err := m.c.(driver.ExecerContext).ExecContext(ctx, q, m.nv)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (m *myBare) query(ctx context.Context, q string, types []model.Type, args ...int64) (int, error) {
	m.ints(args)
	rows, err := m.c.(driver.QueryerContext).QueryContext(ctx, q, m.nv)
	if err != nil {
		return 0, err
	}
	if len(m.dest) != len(types) {
		m.dest = make([]driver.Value, len(types))
	}
	n := 0
	for {
		if err := rows.Next(m.dest); err != nil {
			rows.Close()
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
		n++
	}
}

func (m *myBare) close() { m.c.Close() }

// floorEngine runs every step's rounds on one engine.
func floorEngine(b *testing.B, eng string) {
	s := settings{
		rows: envInt("FLOOR_ROWS", 50000), churn: envInt("FLOOR_CHURN", 20000),
		seconds: float64(envInt("FLOOR_SECONDS", 5)), rounds: int(envInt("FLOOR_ROUNDS", 3)),
		steps: envList("FLOOR_STEPS", "l.i0,l.i1,qr100,qp100"),
	}
	ctx := context.Background()
	tg := targetFor(b, eng)
	cfg := model.Config{DSN: tg.dsn, Database: dbName, Options: map[string]string{"drop_database": "true"}}
	db, err := engine.Open(ctx, eng, cfg)
	if err != nil {
		if os.Getenv("RUMBENCH_REQUIRE_SERVERS") == "" && dbserver.Unreachable(err) {
			b.Skipf("%s unreachable: %v", eng, err)
		}
		b.Fatal(err)
	}
	defer db.Close()
	b.Logf("%s settings: %v", eng, db.Info().Settings)
	t := ibench.Table(ibench.TableName(0), 3, 20)
	loaded := false
	var rowsOut []string
	first := true
	for _, step := range s.steps {
		if step != ibench.StepLoad && !loaded {
			// The churn and query steps run on a loaded, indexed table.
			if _, err := runStep(ctx, db, s, ibench.StepLoad); err != nil {
				b.Fatal(err)
			}
			loaded = true
		}
		if step != ibench.StepLoad && len(t.Indexes) > 0 {
			if err := db.CreateIndexes(ctx, t); err != nil {
				b.Fatal(err)
			}
			if step[0] == 'q' {
				if m, ok := db.(model.Maintainer); ok {
					if err := m.Maintain(ctx); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
		// The bare loops: the C loop first (when built), then the Go ones,
		// as many as FLOOR_BARES names (all by default).
		var bares []bare
		for _, bl := range tg.bares {
			if wantBare(bl.name) {
				bares = append(bares, bl)
			}
		}
		cbin, cerr := cloopBin(tg)
		if cerr != nil {
			b.Fatal(cerr)
		}
		if cbin != "" && wantBare("C") {
			bares = append([]bare{{name: "C", ext: true}}, bares...)
		} else if first {
			b.Logf("no C loop for %s: FLOOR_CLOOP_DIR unset or without it (scripts/floor.sh builds it)", eng)
		}
		withBin := os.Getenv("FLOOR_BIN") != ""
		if !withBin && first {
			b.Logf("FLOOR_BIN unset: the rumbench binary is not run (scripts/floor.sh builds it)")
		}
		first = false
		nb := len(bares)
		bareUs, ratio, binRatio := make([][]float64, nb), make([][]float64, nb), make([][]float64, nb)
		var stepUs, binUs []float64
		for r := range s.rounds {
			// Every bare loop, the step in process and the binary, in an
			// order rotated each round.
			brs := make([]result, nb)
			var sr result
			var bu float64
			phases := []func() error{func() (err error) { sr, err = runStep(ctx, db, s, step); return }}
			if withBin {
				phases = append(phases, func() (err error) { bu, err = runBinary(ctx, tg, s, step); return })
			}
			for i, bl := range bares {
				phases = append(phases, func() (err error) {
					if bl.ext {
						brs[i], err = runCOnTable(ctx, db, tg, t, s, step)
					} else {
						brs[i], err = runBare(ctx, db, tg, bl, t, s, step)
					}
					return
				})
			}
			for k := range phases {
				if err := phases[(k+r)%len(phases)](); err != nil {
					b.Fatalf("%s %s: %v", eng, step, err)
				}
			}
			if step == ibench.StepLoad {
				loaded = true
			}
			stepUs = append(stepUs, sr.perOp())
			binUs = append(binUs, bu)
			for i, bl := range bares {
				b.Logf("%s %s round %d: bare %s %.2f µs/op (%d ops), step %.2f µs/op (%d ops), binary %.2f µs/op", eng, step, r+1, bl.name, brs[i].perOp(), brs[i].ops, sr.perOp(), sr.ops, bu)
				bareUs[i] = append(bareUs[i], brs[i].perOp())
				ratio[i] = append(ratio[i], sr.perOp()/brs[i].perOp())
				binRatio[i] = append(binRatio[i], bu/brs[i].perOp())
			}
		}
		ms, mbin := median(stepUs), median(binUs)
		b.ReportMetric(0, "ns/op")
		b.ReportMetric(ms, step+"-step-µs/op")
		if withBin {
			b.ReportMetric(mbin, step+"-binary-µs/op")
		}
		unit := "row"
		if step[0] == 'q' {
			unit = "query"
		}
		for i, bl := range bares {
			mb, mr, mbr := median(bareUs[i]), median(ratio[i]), median(binRatio[i])
			b.ReportMetric(mb, step+"-bare-"+bl.name+"-µs/op")
			b.ReportMetric(mr, step+"-ratio-"+bl.name)
			binCols := "        - |     - "
			if withBin {
				binCols = fmt.Sprintf("%9.2f | %5.2f", mbin, mbr)
				b.ReportMetric(mbr, step+"-binary-ratio-"+bl.name)
			}
			rowsOut = append(rowsOut, fmt.Sprintf("| %-8s | %-6s | %-5s | %-6s | %8.2f | %8.2f | %5.2f | %s | %s / %s |", eng, step, unit, bl.name, mb, ms, mr, binCols, fmtList(ratio[i]), fmtList(binRatio[i])))
		}
	}
	fmt.Printf("\nclient CPU per op (µs, median of %d rounds; load %s; binary at --interval %s)\n", s.rounds, loadAvg(), binInterval())
	fmt.Println("| engine   | step   | per   | bare   |     bare |     step | ratio |    binary | ratio | ratios per round: step / binary |")
	fmt.Println("| -------- | ------ | ----- | ------ | -------: | -------: | ----: | --------: | ----: | ------------------------------- |")
	for _, l := range rowsOut {
		fmt.Println(l)
	}
}

// wantBare reports whether FLOOR_BARES (a comma list of bare loop names,
// default all) names the loop: a round of every Go loop takes minutes.
func wantBare(name string) bool {
	v := os.Getenv("FLOOR_BARES")
	return v == "" || slices.Contains(strings.Split(v, ","), name)
}

func fmtList(v []float64) string {
	var s []string
	for _, x := range v {
		s = append(s, strconv.FormatFloat(x, 'f', 2, 64))
	}
	return strings.Join(s, " ")
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func benchConfig(s settings, step string) ibench.Config {
	return ibench.Config{Clients: 1, Rows: s.rows, ChurnRows: s.churn * 5 / 4, Indexes: 3, PadMin: 10, PadMax: 20,
		PadRandomPct: 50, QuerySeconds: s.seconds, Seed: 1, Steps: []string{step}}
}

// runStep runs one rumbench step as the runner does (Prepare, a clock with
// the workload's recorders) and returns its client CPU per main operation
// unit: inserted rows for write steps, queries for query steps.
func runStep(ctx context.Context, db model.DB, s settings, step string) (result, error) {
	wl, err := ibench.New(benchConfig(s, step))
	if err != nil {
		return result{}, err
	}
	if err := wl.Prepare(ctx, db); err != nil {
		return result{}, err
	}
	st := wl.Steps()[0]
	clock := measure.NewClock(time.Second, wl.Ops())
	env := &workload.Env{DB: db, Clock: clock, Details: map[string]any{}, Logf: func(string, ...any) {}}
	return measured(func() (int64, error) {
		clock.Start()
		err := st.Run(ctx, env)
		clock.Stop()
		main := wl.Ops().Must(st.MainOp)
		return clock.Total(main).Done(wl.Ops()[main].Unit), err
	})
}

// pkRange reads the table's live PK range [lo, next).
func pkRange(ctx context.Context, db model.DB, t *model.Table) (lo, next int64, err error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	lo, next = 1, 1
	if _, err = c.Scan(ctx, t, model.ScanSpec{Index: -1, Limit: 1}, func(r model.Row) bool { lo = r[0].Int; return false }); err != nil {
		return
	}
	_, err = c.Scan(ctx, t, model.ScanSpec{Index: -1, Limit: 1, Desc: true}, func(r model.Row) bool { next = r[0].Int + 1; return false })
	return
}

// runBare runs the bare driver loop of one step on the same table.
func runBare(ctx context.Context, db model.DB, tg target, bl bare, t *model.Table, s settings, step string) (result, error) {
	if step == ibench.StepLoad {
		if err := db.CreateTable(ctx, t); err != nil {
			return result{}, err
		}
	}
	lo, next, err := pkRange(ctx, db, t)
	if err != nil {
		return result{}, err
	}
	var conns []bareConn
	defer func() {
		for _, c := range conns {
			c.close()
		}
	}()
	for range 3 {
		c, err := bl.dial(ctx)
		if err != nil {
			return result{}, err
		}
		conns = append(conns, c)
	}
	st := &bareState{t: t, d: tg.d, gen: ibench.NewRowGen(1, 0, 10, 20, 50)}
	st.next.Store(next)
	st.min.Store(lo)
	st.delText, _ = tg.d.DeleteOldest(t, 1)
	switch step {
	case ibench.StepLoad:
		return measured(func() (int64, error) { return s.rows, st.insertN(ctx, conns[0], s.rows, 100, nil) })
	case ibench.StepChurnBig:
		return measured(func() (int64, error) { return s.churn, st.churn(ctx, conns[0], conns[1], s.churn, 50) })
	case ibench.StepQR100, ibench.StepQP100:
		return measured(func() (int64, error) {
			return st.queries(ctx, conns, step == ibench.StepQP100, time.Duration(s.seconds*float64(time.Second)))
		})
	}
	return result{}, fmt.Errorf("no bare loop for step %s", step)
}

type bareState struct {
	t       *model.Table
	d       sqleng.Dialect
	gen     *ibench.RowGen
	next    atomic.Int64
	inserts atomic.Int64
	min     atomic.Int64
	delText string
}

func (st *bareState) insertN(ctx context.Context, c bareConn, n int64, bs int, after func(int64)) error {
	batch := ibench.NewBatch(bs, 20)
	q := st.d.Insert(st.t, bs)
	for done := int64(0); done < n; {
		k := min(int64(bs), n-done)
		if int(k) != bs {
			q = st.d.Insert(st.t, int(k))
		}
		rows := st.gen.Fill(batch, st.next.Load(), int(k), time.Now().Unix())
		if err := c.insert(ctx, q, st.t, rows); err != nil {
			return err
		}
		st.next.Add(k)
		done += k
		st.inserts.Add(k)
		if after != nil {
			after(k)
		}
	}
	return nil
}

func (st *bareState) del(ctx context.Context, c bareConn, k int64) (int64, error) {
	got, err := c.exec(ctx, st.delText, st.min.Load(), k)
	st.min.Add(got)
	return got, err
}

// churn is l.i1: an inserter and a deleter that follows it, at most 1000
// rows behind.
func (st *bareState) churn(ctx context.Context, ins, dc bareConn, n int64, bs int) error {
	wake, progress := make(chan struct{}, 1), make(chan struct{}, 1)
	var deleted atomic.Int64
	errc := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		var d int64
		for {
			target := st.inserts.Load()
			if d >= target {
				select {
				case <-done:
					if d >= st.inserts.Load() {
						errc <- nil
						return
					}
				case <-wake:
				}
				continue
			}
			got, err := st.del(ctx, dc, min(int64(bs), target-d))
			if err != nil {
				errc <- err
				return
			}
			d += got
			deleted.Store(d)
			select {
			case progress <- struct{}{}:
			default:
			}
		}
	}()
	err := st.insertN(ctx, ins, n, bs, func(int64) {
		select {
		case wake <- struct{}{}:
		default:
		}
		for st.inserts.Load()-deleted.Load() > 1000 {
			<-progress
		}
	})
	close(done)
	return errors.Join(err, <-errc)
}

// queries runs closed-loop queries on cs[0] for d while cs[1] inserts 50
// rows every half second and cs[2] deletes as many a quarter second later
// (the 100 rows/s writers of qr100/qp100).
func (st *bareState) queries(ctx context.Context, cs []bareConn, point bool, d time.Duration) (int64, error) {
	end := time.Now().Add(d)
	errc := make(chan error, 2)
	go func() {
		for at := time.Now(); at.Before(end); at = at.Add(500 * time.Millisecond) {
			time.Sleep(time.Until(at))
			if err := st.insertN(ctx, cs[1], 50, 50, nil); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	go func() {
		for at := time.Now().Add(250 * time.Millisecond); at.Before(end); at = at.Add(500 * time.Millisecond) {
			time.Sleep(time.Until(at))
			if _, err := st.del(ctx, cs[2], 50); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	rnd := rand.New(rand.NewPCG(1, 2))
	t := st.t
	var scans []string
	var scanTypes [][]model.Type
	for i := range t.Indexes {
		scans = append(scans, sqleng.ScanText(st.d, t, i, 1, false, true))
		var ty []model.Type
		for _, c := range t.IndexColumns(i) {
			ty = append(ty, t.Columns[c].Type)
		}
		scanTypes = append(scanTypes, ty)
	}
	get := sqleng.GetText(st.d, t, 10)
	var all []model.Type
	for _, c := range t.Columns {
		all = append(all, c.Type)
	}
	keys := make([]int64, 10)
	var n int64
	var err error
	for time.Now().Before(end) {
		if point {
			lo, hi := st.min.Load(), st.next.Load()
			for i := range keys {
				keys[i] = lo + rnd.Int64N(max(hi-lo, 1))
			}
			_, err = cs[0].query(ctx, get, all, keys...)
		} else {
			i := rnd.IntN(len(scans))
			_, err = cs[0].query(ctx, scans[i], scanTypes[i], rnd.Int64N(ibench.LeadingDomain(t, i)), 10)
		}
		if err != nil {
			break
		}
		n++
	}
	return n, errors.Join(err, <-errc, <-errc)
}

// gcCPUNow is the Go runtime's estimate of the CPU its garbage collector
// has spent in this process, in µs (runtime/metrics): what a harness that
// holds a large recording in memory pays for it, beside the work measured.
func gcCPUNow() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return s[0].Value.Float64() * 1e6
}

// TestTickersApart: the tickers are compared per unit of each side's own
// count, the largest ratio first either way, and those rarer than one
// event in ten units on both sides are left out.
func TestTickersApart(t *testing.T) {
	before := map[string]int64{"skip": 10, "prev": 100, "rare": 1}
	after := map[string]int64{"skip": 155, "prev": 276, "rare": 1, "new": 40}
	d := tickerDelta(before, after)
	if d["skip"] != 145 || d["prev"] != 176 || d["new"] != 40 || d["rare"] != 0 {
		t.Fatalf("tickerDelta = %v", d)
	}
	// The store's side did 20 units: "rare" is 0.05 per unit there.
	store := map[string]int64{"skip": 226, "prev": 350, "rare": 1, "new": 20}
	got := tickersApart(d, 10, store, 20, 5)
	want := "new 4/1, skip 14.5/11.3, prev 17.6/17.5"
	if got != want {
		t.Errorf("tickersApart = %q, want %q", got, want)
	}
	if got := tickersApart(d, 10, store, 20, 1); got != "new 4/1" {
		t.Errorf("tickersApart with n=1 = %q", got)
	}
	if tickerDelta(before, nil) != nil {
		t.Error("tickerDelta of an engine without tickers is not nil")
	}
}

// TestEngineTickersFromInternals: an engine without statistics tickers
// (bbolt) gives its cumulative counters instead, so the load floor can say
// whether a side wrote more pages: a batch of inserts counts page writes.
func TestEngineTickersFromInternals(t *testing.T) {
	ctx := context.Background()
	db, err := engine.Open(ctx, "bbolt", model.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tbl := enginetest.IbenchTable("pi1")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before := engineTickers(db)
	if _, ok := before["page_writes"]; !ok {
		t.Fatalf("bbolt's counters have no page_writes: %v", before)
	}
	rows := make([]model.Row, 100)
	for i := range rows {
		rows[i] = enginetest.IbenchRow(nil, int64(i+1))
	}
	if err := c.Insert(ctx, tbl, rows); err != nil {
		t.Fatal(err)
	}
	if d := tickerDelta(before, engineTickers(db)); d["page_writes"] <= 0 {
		t.Fatalf("an insert of 100 rows counted %d page writes", d["page_writes"])
	}
}
