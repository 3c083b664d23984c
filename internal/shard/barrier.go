package shard

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"rumbench/internal/sqlbind"
)

// Flavor is the SQL dialect of the server the barrier table lives on.
type Flavor int

const (
	// Postgres keeps the table in its own schema, rumbench_shard, so the
	// engine's size (the tables of the current schema) leaves it out.
	Postgres Flavor = iota
	// MySQL keeps it in rumbench's database as a MEMORY table, so the
	// engine's size (InnoDB or MyRocks tables) leaves it out.
	MySQL
)

// DefaultLead is how far ahead of the last arrival a step starts: long
// enough for every shard's next poll to see the start time before it comes.
const DefaultLead = 500 * time.Millisecond

// A waiting shard reads the barrier table every pollFirst at first, then
// less often, up to every pollMax: a long wait (the others wait while shard
// 0 builds the indexes) costs the measured server a few queries a second per
// shard. pollMax stays well under DefaultLead, so every shard sees a step's
// start before it comes.
const (
	pollFirst = 20 * time.Millisecond
	pollMax   = 200 * time.Millisecond
)

// Reserved step names of the table's bookkeeping rows.
const (
	stepAlive = "~alive"  // one per shard: its token and last heartbeat
	stepDone  = "~done"   // one per shard that passed the last barrier
	stepFail  = "~failed" // one per shard that ended early (its error is its own)
	startRow  = -1        // the shard number of a step's start-time row
)

// Barrier is one shard's side of a sharded run's barrier: a small table on
// the server under test where each shard registers its arrival at a step;
// the first shard to see all N arrivals writes the step's start time (the
// server's clock + Lead) and every shard starts then, translated to its own
// clock by the offset measured on each poll (server time minus the local
// time at the middle of the round trip): the shards' clocks need not agree,
// only the server's is used.
//
// A shard's arrivals count only under its current token (one per process,
// written in its heartbeat row), so the rows of an earlier run with the
// same run id are never mistaken for this one's. A shard whose heartbeat
// is older than the timeout while others wait for it ends their wait with
// an error naming it.
type Barrier struct {
	db      *sql.DB
	flavor  Flavor
	table   string
	run     string
	spec    Spec
	timeout time.Duration
	token   string
	// Lead is how far ahead of its setting a step's start lies.
	Lead time.Duration
	// joinedUs is when this shard registered, by the server's clock.
	joinedUs int64

	hbStop chan struct{}
	hbDone chan struct{}
	once   sync.Once
}

// TimeoutError is returned by Wait when shards stopped answering.
type TimeoutError struct {
	Step    string
	Missing []string // "2/3 (not seen for 61s)"
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	s := "shard"
	if len(e.Missing) > 1 {
		s = "shards"
	}
	return fmt.Sprintf("%s %s did not arrive at %s within --shard-timeout %s: they stopped or lost the server; this shard's results so far are kept", s, strings.Join(e.Missing, ", "), stepLabel(e.Step), e.Timeout)
}

// stepLabel names a barrier's step for users.
func stepLabel(step string) string {
	switch step {
	case "~prepare":
		return "the start of the run"
	case "~prepared":
		return "the end of shard 0's table creation"
	case "~end":
		return "the end of the run"
	}
	return "step " + step
}

// FailedError is returned by Wait when shards ended early with an error of
// their own (their output says which).
type FailedError struct {
	Step   string
	Shards []string
}

func (e *FailedError) Error() string {
	return fmt.Sprintf("shard %s failed before %s (its own output has the error): this shard stops too; its results so far are kept", strings.Join(e.Shards, ", "), stepLabel(e.Step))
}

// Open creates the barrier table when missing, registers this shard under a
// fresh token and starts its heartbeat.
func Open(ctx context.Context, db *sql.DB, flavor Flavor, run string, spec Spec, timeout time.Duration) (*Barrier, error) {
	tok := make([]byte, 8)
	if _, err := rand.Read(tok); err != nil {
		return nil, fmt.Errorf("shard token: %w", err)
	}
	b := &Barrier{db: db, flavor: flavor, run: run, spec: spec, timeout: timeout, token: hex.EncodeToString(tok), Lead: DefaultLead}
	b.table = "rumbench_barrier"
	if flavor == Postgres {
		b.table = "rumbench_shard.barrier"
	}
	if err := b.createTable(ctx); err != nil {
		return nil, err
	}
	if err := b.checkNotUnderWay(ctx); err != nil {
		return nil, err
	}
	// This shard's rows of an earlier run with the same id go.
	if _, err := b.exec(ctx, "DELETE FROM "+b.table+" WHERE run_id = ? AND shard = ? AND token <> ?", run, spec.Index, b.token); err != nil {
		return nil, fmt.Errorf("shard barrier: clear old rows: %w", err)
	}
	// So do the arrivals and start times of processes that ended (failed
	// or done): a new process of the run starts clean. Their ~alive,
	// ~failed and ~done rows stay, so a shard of this run already waiting
	// still sees a failure at once; Wait ignores ended tokens' rows.
	// (The doubled subquery lets MySQL read the table it deletes from.)
	if _, err := b.exec(ctx, "DELETE FROM "+b.table+" WHERE run_id = ? AND step NOT IN (?, ?, ?) AND token IN (SELECT token FROM (SELECT token FROM "+b.table+" WHERE run_id = ? AND step IN (?, ?)) AS ended)",
		run, stepAlive, stepFail, stepDone, run, stepFail, stepDone); err != nil {
		return nil, fmt.Errorf("shard barrier: clear the rows of ended shards: %w", err)
	}
	// The heartbeat row's set_us is when the shard joined.
	q := "INSERT INTO " + b.table + " (run_id, step, shard, token, at_us, set_us) SELECT ?, ?, ?, ?, n, n FROM (SELECT " + b.nowUs() + " AS n) AS now "
	if flavor == Postgres {
		q += "ON CONFLICT (run_id, step, shard) DO UPDATE SET token = excluded.token, at_us = excluded.at_us, set_us = excluded.set_us"
	} else {
		q += "ON DUPLICATE KEY UPDATE token = VALUES(token), at_us = VALUES(at_us), set_us = VALUES(set_us)"
	}
	if _, err := b.exec(ctx, q, run, stepAlive, spec.Index, b.token); err != nil {
		return nil, fmt.Errorf("shard barrier: register shard %s: %w", spec, err)
	}
	if err := b.db.QueryRowContext(ctx, b.bind("SELECT at_us FROM "+b.table+" WHERE run_id = ? AND step = ? AND shard = ?"), run, stepAlive, spec.Index).Scan(&b.joinedUs); err != nil {
		return nil, fmt.Errorf("shard barrier: read this shard's registration: %w", err)
	}
	b.hbStop, b.hbDone = make(chan struct{}), make(chan struct{})
	go b.heartbeat()
	return b, nil
}

// checkNotUnderWay refuses to join a run that is under way without this
// shard: an earlier process of this shard registered, and another shard
// is alive (heartbeat within the timeout, not failed or done). A shard restarted
// mid-run would redo steps the others finished; the run must start over.
func (b *Barrier) checkNotUnderWay(ctx context.Context) error {
	rows, err := b.db.QueryContext(ctx, b.bind("SELECT step, shard, token, at_us, set_us, "+b.nowUs()+" FROM "+b.table+" WHERE run_id = ? AND step IN (?, ?, ?)"), b.run, stepAlive, stepFail, stepDone)
	if err != nil {
		return fmt.Errorf("shard barrier: read run %s: %w", b.run, err)
	}
	defer rows.Close()
	type alive struct {
		token        string
		atUs, joined int64
	}
	seen := map[int]alive{}
	ended := map[string]bool{} // tokens of processes that failed or finished
	var now int64
	for rows.Next() {
		var step, token string
		var shard int
		var at, joined int64
		if err := rows.Scan(&step, &shard, &token, &at, &joined, &now); err != nil {
			return fmt.Errorf("shard barrier: read run %s: %w", b.run, err)
		}
		if step != stepAlive {
			ended[token] = true
		} else {
			seen[shard] = alive{token, at, joined}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("shard barrier: read run %s: %w", b.run, err)
	}
	me, rejoin := seen[b.spec.Index]
	if !rejoin {
		return nil
	}
	// Shards alive now that were alive with this shard's earlier process
	// (joined before its last heartbeat) run the run it left.
	var live []string
	for s, a := range seen {
		if s != b.spec.Index && !ended[a.token] && now-a.atUs <= b.timeout.Microseconds() && a.joined <= me.atUs {
			live = append(live, fmt.Sprintf("%d/%d", s, b.spec.Count))
		}
	}
	if len(live) == 0 {
		return nil // an earlier run with this id that ended
	}
	sort.Strings(live)
	return fmt.Errorf("shard %s cannot join run %s: it is under way (shard %s alive) and an earlier process of this shard left it; a shard cannot rejoin a run mid-way: start every shard again with another --shard-run, or wait --shard-timeout (%s) after the old run's shards stopped", b.spec, b.run, strings.Join(live, ", "), b.timeout)
}

func (b *Barrier) createTable(ctx context.Context) error {
	var stmts []string
	if b.flavor == Postgres {
		stmts = []string{
			"CREATE SCHEMA IF NOT EXISTS rumbench_shard",
			"CREATE TABLE IF NOT EXISTS rumbench_shard.barrier (run_id text NOT NULL, step text NOT NULL, shard int NOT NULL, token text NOT NULL, at_us bigint NOT NULL, set_us bigint NOT NULL, PRIMARY KEY (run_id, step, shard))",
		}
	} else {
		stmts = []string{"CREATE TABLE IF NOT EXISTS rumbench_barrier (run_id varchar(64) NOT NULL, step varchar(128) NOT NULL, shard int NOT NULL, token varchar(32) NOT NULL, at_us bigint NOT NULL, set_us bigint NOT NULL, PRIMARY KEY (run_id, step, shard)) ENGINE=MEMORY"}
	}
	for _, q := range stmts {
		var err error
		// Shards creating it at once may collide in the catalog
		// (PostgreSQL's IF NOT EXISTS is not atomic): the next try sees it.
		for try := 0; try < 5; try++ {
			if _, err = b.db.ExecContext(ctx, q); err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err != nil {
			return fmt.Errorf("shard barrier: create table %s: %w", b.table, err)
		}
	}
	return nil
}

// nowUs is the SQL expression of the server's clock in µs since the epoch.
func (b *Barrier) nowUs() string {
	if b.flavor == Postgres {
		return "(extract(epoch from clock_timestamp()) * 1000000)::bigint"
	}
	return "CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED)"
}

// bind turns ? placeholders into $n for PostgreSQL.
func (b *Barrier) bind(q string) string {
	if b.flavor != Postgres {
		return q
	}
	return sqlbind.Numbered(q)
}

func (b *Barrier) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return b.db.ExecContext(ctx, b.bind(q), args...)
}

// upsert records this shard's row for step at the server's current time.
func (b *Barrier) upsert(ctx context.Context, step string) error {
	q := "INSERT INTO " + b.table + " (run_id, step, shard, token, at_us, set_us) VALUES (?, ?, ?, ?, " + b.nowUs() + ", 0) "
	if b.flavor == Postgres {
		q += "ON CONFLICT (run_id, step, shard) DO UPDATE SET token = excluded.token, at_us = excluded.at_us"
	} else {
		q += "ON DUPLICATE KEY UPDATE token = VALUES(token), at_us = VALUES(at_us)"
	}
	if _, err := b.exec(ctx, q, b.run, step, b.spec.Index, b.token); err != nil {
		return fmt.Errorf("shard barrier: record %s of shard %s: %w", step, b.spec, err)
	}
	return nil
}

// heartbeatEvery is how often a shard says it is alive: often enough that
// a timeout of a few seconds never fires for a live shard.
func (b *Barrier) heartbeatEvery() time.Duration {
	return min(time.Second, max(b.timeout/4, 50*time.Millisecond))
}

func (b *Barrier) heartbeat() {
	defer close(b.hbDone)
	t := time.NewTicker(b.heartbeatEvery())
	defer t.Stop()
	for {
		select {
		case <-b.hbStop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
			// A failed beat is retried at the next tick; the others
			// notice only when beats stop for the whole timeout.
			_ = b.upsert(ctx, stepAlive)
			cancel()
		}
	}
}

type row struct {
	step        string
	shard       int
	token       string
	atUs, setUs int64
}

// read returns the rows of step, the heartbeats, failures and finishes, the
// server's time, and
// the local time at the middle of the query's round trip and the round trip.
func (b *Barrier) read(ctx context.Context, step string) (rows []row, serverUs int64, mid time.Time, rtt time.Duration, err error) {
	t0 := time.Now()
	rs, err := b.db.QueryContext(ctx, b.bind("SELECT step, shard, token, at_us, set_us, "+b.nowUs()+" FROM "+b.table+" WHERE run_id = ? AND step IN (?, ?, ?, ?)"), b.run, step, stepAlive, stepFail, stepDone)
	if err != nil {
		return nil, 0, time.Time{}, 0, fmt.Errorf("shard barrier: read step %s: %w", step, err)
	}
	defer rs.Close()
	for rs.Next() {
		var r row
		if err := rs.Scan(&r.step, &r.shard, &r.token, &r.atUs, &r.setUs, &serverUs); err != nil {
			return nil, 0, time.Time{}, 0, fmt.Errorf("shard barrier: read step %s: %w", step, err)
		}
		rows = append(rows, r)
	}
	if err := rs.Err(); err != nil {
		return nil, 0, time.Time{}, 0, fmt.Errorf("shard barrier: read step %s: %w", step, err)
	}
	t1 := time.Now()
	if len(rows) == 0 {
		// No row to carry the server's time (cannot happen once this
		// shard's heartbeat is in): ask for it alone.
		if err := b.db.QueryRowContext(ctx, "SELECT "+b.nowUs()).Scan(&serverUs); err != nil {
			return nil, 0, time.Time{}, 0, fmt.Errorf("shard barrier: read the server's clock: %w", err)
		}
		t1 = time.Now()
	}
	return rows, serverUs, t0.Add(t1.Sub(t0) / 2), t1.Sub(t0), nil
}

// Wait registers this shard's arrival at step and returns when every shard
// has arrived: the agreed start time on this host's clock (a moment ahead;
// in the past only for a shard that polled late). It fails with a
// *TimeoutError naming the shards not seen for the timeout.
func (b *Barrier) Wait(ctx context.Context, step string) (time.Time, error) {
	if err := b.upsert(ctx, step); err != nil {
		return time.Time{}, err
	}
	waitStart := time.Now()
	poll := pollFirst
	var best time.Duration = -1
	var offset time.Duration // server clock minus this host's
	for {
		rows, serverUs, mid, rtt, err := b.read(ctx, step)
		if err != nil {
			return time.Time{}, err
		}
		if best < 0 || rtt < best {
			best = rtt
			offset = time.UnixMicro(serverUs).Sub(mid)
		}
		alive := map[int]row{}
		for _, r := range rows {
			if r.step == stepAlive {
				alive[r.shard] = r
			}
		}
		var failed []string
		for _, r := range rows {
			// Failures before this shard joined are an earlier run's.
			if r.step == stepFail && alive[r.shard].token == r.token && r.atUs >= b.joinedUs {
				failed = append(failed, fmt.Sprintf("%d/%d", r.shard, b.spec.Count))
			}
		}
		if len(failed) > 0 {
			sort.Strings(failed)
			return time.Time{}, &FailedError{Step: step, Shards: failed}
		}
		// A process that failed, or finished before this one joined, is
		// an earlier run's: its heartbeat (fresh for the timeout after it
		// stopped) and its arrivals do not count, or a run restarted
		// within the timeout would pass barriers without that shard.
		for _, r := range rows {
			if (r.step == stepFail || r.step == stepDone && r.atUs < b.joinedUs) && alive[r.shard].token == r.token {
				delete(alive, r.shard)
			}
		}
		var start *row
		arrived := map[int]bool{}
		var lastArrival int64
		for _, r := range rows {
			switch {
			case r.step != step:
			case r.shard == startRow:
				r := r
				start = &r
			// An arrival counts under its shard's current token and
			// while the shard is alive: an earlier run's shard that
			// stopped is not.
			case r.shard < b.spec.Count && alive[r.shard].token == r.token && serverUs-alive[r.shard].atUs <= b.timeout.Microseconds():
				arrived[r.shard] = true
				lastArrival = max(lastArrival, r.atUs)
			}
		}
		if len(arrived) == b.spec.Count {
			if start != nil && start.setUs >= lastArrival {
				return time.UnixMicro(start.atUs).Add(-offset), nil
			}
			if start != nil {
				// Left by an earlier run with the same id.
				if _, err := b.exec(ctx, "DELETE FROM "+b.table+" WHERE run_id = ? AND step = ? AND shard = ? AND set_us = ?", b.run, step, startRow, start.setUs); err != nil {
					return time.Time{}, fmt.Errorf("shard barrier: clear an old start of step %s: %w", step, err)
				}
			}
			if err := b.setStart(ctx, step); err != nil {
				return time.Time{}, err
			}
			continue
		}
		var missing []string
		for s := 0; s < b.spec.Count; s++ {
			if arrived[s] {
				continue
			}
			a, seen := alive[s]
			switch {
			case time.Since(waitStart) <= b.timeout:
				// Every shard gets the whole timeout to arrive.
			case seen && serverUs-a.atUs > b.timeout.Microseconds():
				missing = append(missing, fmt.Sprintf("%d/%d (not seen for %s)", s, b.spec.Count, (time.Duration(serverUs-a.atUs)*time.Microsecond).Round(100*time.Millisecond)))
			case !seen:
				missing = append(missing, fmt.Sprintf("%d/%d (never joined run %s)", s, b.spec.Count, b.run))
			}
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			return time.Time{}, &TimeoutError{Step: step, Missing: missing, Timeout: b.timeout}
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(poll):
		}
		poll = min(poll*3/2, pollMax)
	}
}

// setStart writes step's start time, Lead ahead of the server's clock,
// unless another shard wrote it first.
func (b *Barrier) setStart(ctx context.Context, step string) error {
	ins := "INSERT INTO "
	tail := " ON CONFLICT (run_id, step, shard) DO NOTHING"
	if b.flavor == MySQL {
		ins, tail = "INSERT IGNORE INTO ", ""
	}
	q := ins + b.table + " (run_id, step, shard, token, at_us, set_us) SELECT ?, ?, ?, ?, n + ?, n FROM (SELECT " + b.nowUs() + " AS n) AS now" + tail
	if _, err := b.exec(ctx, q, b.run, step, startRow, b.token, b.Lead.Microseconds()); err != nil {
		return fmt.Errorf("shard barrier: set the start of step %s: %w", step, err)
	}
	return nil
}

// Close stops the heartbeat and, when the run did not pass its last
// barrier, marks this shard failed so the others stop waiting. After a run that passed its last barrier
// (done), the last shard to close deletes the run's rows; otherwise they
// stay, harmless: a later run with the same id ignores them (tokens).
func (b *Barrier) Close(ctx context.Context, done bool) error {
	b.once.Do(func() {
		close(b.hbStop)
		<-b.hbDone
	})
	if !done {
		// Tell the others at once rather than after the timeout.
		return b.upsert(ctx, stepFail)
	}
	if err := b.upsert(ctx, stepDone); err != nil {
		return err
	}
	rows, err := b.db.QueryContext(ctx, b.bind("SELECT d.shard FROM "+b.table+" d JOIN "+b.table+" a ON a.run_id = d.run_id AND a.shard = d.shard AND a.step = ? AND a.token = d.token WHERE d.run_id = ? AND d.step = ?"), stepAlive, b.run, stepDone)
	if err != nil {
		return fmt.Errorf("shard barrier: read the finished shards: %w", err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	rows.Close()
	if n < b.spec.Count {
		return nil
	}
	if _, err := b.exec(ctx, "DELETE FROM "+b.table+" WHERE run_id = ?", b.run); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("shard barrier: clear run %s: %w", b.run, err)
	}
	return nil
}
