// Package postgres is the "postgres" engine: PostgreSQL (heap tables with
// B-tree indexes) through github.com/jackc/pgx/v5 and its database/sql
// adapter (schema changes, catalog, statistics), with the workers'
// connections on pgconn, pgx's protocol layer (session.go), on a server
// addressed by a DSN.
//
// rumbench works in its own database (--database, default "rumbench"),
// created at Open when missing and dropped by DropDatabase (or at Close with
// drop_database=true). A database that exists but holds no rumbench catalog
// and is not empty is refused, so no other data is ever touched.
//
// Statements are prepared once per connection (the generic SQL layer); the
// primary key is a plain bigint whose increasing values the client sends
// (an identity column would only add a sequence the client overrides).
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"rumbench/internal/engine"
	"rumbench/internal/engine/catalog"
	"rumbench/internal/engine/dbserver"
	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/engine/sql/blockconn"
	"rumbench/internal/engineopt"
	"rumbench/internal/model"
)

// DefaultDSN addresses the local server over TCP as the postgres superuser.
const DefaultDSN = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// EnvDSN overrides DefaultDSN when --dsn is empty.
const EnvDSN = "RUMBENCH_PG_DSN"

// minVersion is the oldest server accepted (server_version_num): 11 is the
// oldest with the features and planner behaviour the numbers assume.
const minVersion = 110000

func init() { engine.Register(Driver{}) }

// Driver is the postgres model.Driver.
type Driver struct{}

func (Driver) Name() string         { return "postgres" }
func (Driver) Family() model.Family { return model.HeapBTree }
func (Driver) Kind() model.Kind     { return model.Server }
func (Driver) Description() string {
	return "PostgreSQL heap + B-tree via pgx; --dsn default $" + EnvDSN + " or postgres://postgres@127.0.0.1:5432/"
}

func (Driver) Options() []model.Option { return optionTable(&parsed{}).Options() }

// optionTable declares postgres's options, parsed into p.
func optionTable(p *parsed) engineopt.Table {
	return engineopt.Table{
		engineopt.Text(&p.synchronousCommit, "synchronous_commit", "", "session synchronous_commit (on, off, local, remote_write; empty = the server's setting)"),
		engineopt.Text(&p.maintenanceWorkMem, "maintenance_work_mem", "256MB", "session memory for CREATE INDEX (step l.x) and VACUUM (empty = the server's setting)"),
		engineopt.Func(blockconn.OptionKey, "blocking", blockconn.OptionHelp, func(raw string) (err error) {
			p.blocking, err = blockconn.ParseOption("postgres", raw)
			return err
		}),
		engineopt.Func("drop_database", "false", "drop the rumbench database when the run ends (true/false); kept by default so `rumbench verify` can check it", func(raw string) (err error) {
			p.dropOnClose, err = parseBool("drop_database", raw)
			return err
		}),
	}
}

// Available needs nothing local (pgx is pure Go); whether the server is
// reachable is only known with the DSN, at Open.
func (Driver) Available() error { return nil }

// DB is an opened postgres database.
type DB struct {
	*sqleng.DB
	admin    *pgx.ConnConfig // the DSN's own database, for CREATE/DROP DATABASE
	name     string
	local    bool
	dropOnCl bool
	secret   string
	exits    exits
}

var (
	_ model.DB                 = (*DB)(nil)
	_ model.ProcessOwner       = (*DB)(nil)
	_ model.Maintainer         = (*DB)(nil)
	_ model.Quiescer           = (*DB)(nil)
	_ model.StatsReporter      = (*DB)(nil)
	_ dbserver.DatabaseDropper = (*DB)(nil)
)

// settingNames are the server settings recorded in run.json.
var settingNames = []string{
	"shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem",
	"synchronous_commit", "fsync", "full_page_writes", "wal_level", "wal_compression",
	"wal_buffers", "max_wal_size", "min_wal_size", "checkpoint_timeout",
	"checkpoint_completion_target", "autovacuum", "autovacuum_vacuum_scale_factor",
	"random_page_cost", "data_checksums", "huge_pages", "block_size", "server_encoding",
}

// parsed is a configuration checked without connecting.
type parsed struct {
	admin       *pgx.ConnConfig
	name        string
	dropOnClose bool
	blocking    bool
	// Session settings, "" for the server's.
	synchronousCommit, maintenanceWorkMem string
}

// ServerAddress is the address dsn ("" for $RUMBENCH_PG_DSN, else the
// local server) reaches: host:port, or the Unix socket's path.
func (Driver) ServerAddress(dsn string) (string, string, error) {
	cfg, err := pgx.ParseConfig(dbserver.DSN(dsn, EnvDSN, DefaultDSN))
	if err != nil {
		return "", "", errors.New("postgres: bad --dsn")
	}
	if strings.HasPrefix(cfg.Host, "/") {
		return "unix", filepath.Join(cfg.Host, ".s.PGSQL."+strconv.Itoa(int(cfg.Port))), nil
	}
	return "tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), nil
}

var _ model.ServerAddress = Driver{}

// ConnectionRoom is how many more connections cfg's user may open:
// max_connections less the client backends connected (this one left out)
// and, for a user who is not a superuser, the superuser_reserved_connections.
func (Driver) ConnectionRoom(ctx context.Context, cfg model.Config) (int, string, error) {
	p, err := parseConfig(cfg)
	if err != nil {
		return 0, "", err
	}
	c, err := pgx.ConnectConfig(ctx, p.admin)
	if err != nil {
		return 0, "", dbserver.Redact(classify(err, p.admin, p.name), p.admin.Password)
	}
	defer c.Close(context.WithoutCancel(ctx))
	var limit, reserved, used int
	var super bool
	err = c.QueryRow(ctx, `SELECT current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int,
		(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int,
		(SELECT rolsuper FROM pg_roles WHERE rolname = current_user)`).Scan(&limit, &reserved, &used, &super)
	if err != nil {
		return 0, "", fmt.Errorf("postgres: read max_connections at %s: %w", address(p.admin), err)
	}
	used-- // this connection
	room := limit - used
	figures := fmt.Sprintf("postgres at %s: max_connections %d, %d in use", address(p.admin), limit, used)
	if !super {
		room -= reserved
		figures += fmt.Sprintf(", %d reserved for superusers", reserved)
	}
	return max(room, 0), figures, nil
}

var _ model.ConnectionRoom = Driver{}

// parseConfig checks the DSN's form, the database name and the option
// values; it connects to nothing.
func parseConfig(cfg model.Config) (parsed, error) {
	var p parsed
	dsn := dbserver.DSN(cfg.DSN, EnvDSN, DefaultDSN)
	if strings.Contains(dsn, "@tcp(") || strings.Contains(dsn, "@unix(") {
		return p, fmt.Errorf("postgres: --dsn looks like a MySQL DSN; give a PostgreSQL URL such as postgres://user@host:5432/")
	}
	p.name = cfg.Database
	if p.name == "" {
		p.name = "rumbench"
	}
	if err := dbserver.CheckDatabaseName(p.name); err != nil {
		return p, fmt.Errorf("postgres: %w", err)
	}
	var err error
	if p.admin, err = pgx.ParseConfig(dsn); err != nil {
		// pgconn's parse errors already mask the password; Redact can't
		// know it here, so say only what is wrong.
		return p, fmt.Errorf("postgres: bad --dsn (want a URL such as postgres://user@host:5432/): %w", err)
	}
	if err := optionTable(&p).Parse(cfg.Options); err != nil {
		return p, err
	}
	return p, nil
}

// ValidateConfig checks the DSN's form and the option values without
// connecting.
func (Driver) ValidateConfig(cfg model.Config) error {
	_, err := parseConfig(cfg)
	return err
}

var _ model.ConfigValidator = Driver{}

// Open connects, creates the database if missing and records the settings.
func (Driver) Open(ctx context.Context, cfg model.Config) (model.DB, error) {
	p, err := parseConfig(cfg)
	if err != nil {
		return nil, err
	}
	admin, name, dropOnClose, blocking := p.admin, p.name, p.dropOnClose, p.blocking
	if cfg.ReadOnly {
		dropOnClose = false // reading never drops what it reads
	}
	secret := admin.Password
	if admin.ConnectTimeout == 0 {
		admin.ConnectTimeout = 10 * time.Second
	}
	if admin.Database == "" || admin.Database == name {
		// Connect to the maintenance database for CREATE/DROP DATABASE:
		// one can't drop the database one is connected to.
		admin.Database = "postgres"
	}
	d := &DB{admin: admin, name: name, dropOnCl: dropOnClose, secret: secret, local: dbserver.LocalHost(admin.Host)}
	version, err := d.ensureDatabase(ctx, cfg.ReadOnly)
	if err != nil {
		return nil, dbserver.Redact(err, secret)
	}

	work := admin.Copy()
	work.Database = name
	work.RuntimeParams = map[string]string{"application_name": "rumbench"}
	for k, v := range admin.RuntimeParams {
		work.RuntimeParams[k] = v
	}
	for k, v := range map[string]string{"synchronous_commit": p.synchronousCommit, "maintenance_work_mem": p.maintenanceWorkMem} {
		if v := strings.TrimSpace(v); v != "" {
			work.RuntimeParams[k] = v
		}
	}
	if cfg.ReadOnly {
		// The server itself refuses any write a reader might attempt.
		work.RuntimeParams["default_transaction_read_only"] = "on"
	}
	sdb := stdlib.OpenDB(*work)
	// The pool serves schema changes (index builds run one per client at
	// once), the catalog and statistics; workers open sessions of their
	// own (session.go), one connection each for a whole step. Unbounded:
	// the server's max_connections is the limit (its error says so).
	sdb.SetMaxOpenConns(0)
	sdb.SetMaxIdleConns(64)
	fail := func(err error) (model.DB, error) {
		sdb.Close()
		return nil, dbserver.Redact(err, secret)
	}
	settings := map[string]string{"server_version": version, "database": name, "host": admin.Host + ":" + strconv.Itoa(int(admin.Port))}
	rows, err := sdb.QueryContext(ctx, "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY($1)", settingNames)
	if err != nil {
		return fail(classify(fmt.Errorf("read settings of database %s: %w", name, err), admin, name))
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return fail(fmt.Errorf("postgres: read settings: %w", err))
		}
		settings[k] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fail(fmt.Errorf("postgres: read settings: %w", err))
	}
	settings["drop_database"] = strconv.FormatBool(dropOnClose)
	info := model.Info{Name: "postgres", Family: model.HeapBTree, Kind: model.Server, Version: version, Settings: settings}
	settings["client"] = "pgconn: statements prepared once per connection, binary parameters and results"
	settings[blockconn.OptionKey] = "netpoller"
	if blocking {
		settings[blockconn.OptionKey] = "blocking"
	}
	sessions := func(ctx context.Context) (sqleng.Session, error) {
		s, err := openSession(ctx, work, blocking)
		if err != nil {
			return nil, dbserver.Redact(classify(err, work, name), secret)
		}
		s.closed = d.exits.add
		return s, nil
	}
	if cfg.ReadOnly {
		inner, err := sqleng.NewReader(ctx, sdb, Dialect{}, info, sessions)
		if err != nil {
			return fail(fmt.Errorf("postgres: database %s at %s %w: give the --database a run used", name, info.Settings["host"], err))
		}
		d.DB = inner
		return d, nil
	}
	inner, err := sqleng.NewWithSessions(ctx, sdb, Dialect{}, info, sessions)
	if err != nil {
		return fail(classify(fmt.Errorf("postgres: %w", err), admin, name))
	}
	d.DB = inner
	return d, nil
}

func parseBool(key, v string) (bool, error) {
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("postgres: bad %s %q: want true or false", key, v)
	}
	return b, nil
}

// ensureDatabase checks the server and creates the database when missing
// (or, readOnly, says it is missing). It returns the server version.
func (d *DB) ensureDatabase(ctx context.Context, readOnly bool) (string, error) {
	c, err := pgx.ConnectConfig(ctx, d.admin)
	if err != nil {
		return "", classify(err, d.admin, d.name)
	}
	defer c.Close(context.WithoutCancel(ctx))
	var version string
	var num int
	if err := c.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('server_version_num')::int").Scan(&version, &num); err != nil {
		return "", fmt.Errorf("postgres: read server version: %w", err)
	}
	if num < minVersion {
		return "", fmt.Errorf("postgres: server version %s is not supported: rumbench needs PostgreSQL 11 or newer", version)
	}
	var exists bool
	if err := c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", d.name).Scan(&exists); err != nil {
		return "", fmt.Errorf("postgres: look up database %s: %w", d.name, err)
	}
	if exists {
		return version, d.checkOurs(ctx)
	}
	if readOnly {
		return "", model.NoDataError(fmt.Errorf("postgres: database %s does not exist at %s:%d: give the --database a run used", d.name, d.admin.Host, d.admin.Port))
	}
	// The name was checked to be a plain identifier.
	if _, err := c.Exec(ctx, "CREATE DATABASE "+sqleng.QuoteDouble(d.name)); err != nil {
		var pe *pgconn.PgError
		// Created concurrently (shards of one run open it at once): 42P04,
		// or 23505 when both passed the catalog's check at the same time.
		if errors.As(err, &pe) && (pe.Code == "42P04" || pe.Code == "23505") {
			return version, nil
		}
		return "", classify(fmt.Errorf("create database %s: %w", d.name, err), d.admin, d.name)
	}
	return version, nil
}

// checkOurs refuses an existing database that holds tables but no rumbench
// catalog: it is someone else's.
func (d *DB) checkOurs(ctx context.Context) error {
	cfg := d.admin.Copy()
	cfg.Database = d.name
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return classify(err, cfg, d.name)
	}
	defer c.Close(context.WithoutCancel(ctx))
	var hasCatalog bool
	var tables int
	err = c.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL,
		(SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		 WHERE c.relkind IN ('r', 'p', 'v', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%')`,
		catalog.Table).Scan(&hasCatalog, &tables)
	if err != nil {
		return fmt.Errorf("postgres: inspect database %s: %w", d.name, err)
	}
	if !hasCatalog && tables > 0 {
		return model.SetupError(fmt.Errorf("postgres: database %s at %s exists and was not created by rumbench (%d tables, no %s): choose another --database", d.name, address(cfg), tables, catalog.Table))
	}
	return nil
}

// address is where cfg connects: host:port, or the socket directory.
func address(cfg *pgx.ConnConfig) string {
	if strings.HasPrefix(cfg.Host, "/") {
		return cfg.Host
	}
	return cfg.Host + ":" + strconv.Itoa(int(cfg.Port))
}

// classify turns connection and permission failures into one-line errors
// naming the fix.
func classify(err error, cfg *pgx.ConnConfig, dbName string) error {
	addr := address(cfg)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "28P01" || pe.Code == "28000":
			return model.SetupError(fmt.Errorf("postgres: authentication failed for user %q at %s (%s): check the user and password in --dsn or $%s (SQLSTATE %s)", cfg.User, addr, pe.Message, EnvDSN, pe.Code))
		case pe.Code == "42501":
			return model.SetupError(fmt.Errorf("postgres: user %q lacks a privilege (%s): grant it (e.g. ALTER ROLE %s CREATEDB) or have an admin create database %s owned by that user (SQLSTATE %s)", cfg.User, pe.Message, cfg.User, dbName, pe.Code))
		case pe.Code == "53300": // too_many_connections
			return model.SetupError(fmt.Errorf("postgres: the server at %s refused a connection (%s): use fewer --clients, or raise its max_connections (SQLSTATE %s)", addr, pe.Message, pe.Code))
		case pe.Code == "3D000":
			return model.SetupError(fmt.Errorf("postgres: the database named in --dsn does not exist (%s): use an existing one such as /postgres", pe.Message))
		}
		return dbserver.OneLine(err)
	}
	if dbserver.Unreachable(err) {
		return model.SetupError(dbserver.WithMessage(fmt.Sprintf("postgres: cannot reach the server at %s: start PostgreSQL there or give its address with --dsn or $%s (e.g. postgres://user@host:5432/): %s", addr, EnvDSN, dbserver.LastLine(err)), err))
	}
	return dbserver.OneLine(err)
}

// Close closes the pool and, with drop_database=true, drops the database.
func (d *DB) Close() error {
	err := d.DB.Close()
	if d.dropOnCl {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err = errors.Join(err, d.DropDatabase(ctx))
	}
	return err
}

// DropDatabase drops the rumbench database. Connections to it must be
// closed; WITH (FORCE) (PostgreSQL 13+) ends leftovers of this process.
func (d *DB) DropDatabase(ctx context.Context) error {
	if d.DB != nil {
		d.DB.SQL().Close()
	}
	c, err := pgx.ConnectConfig(ctx, d.admin)
	if err != nil {
		return dbserver.Redact(classify(err, d.admin, d.name), d.secret)
	}
	defer c.Close(context.WithoutCancel(ctx))
	var num int
	if err := c.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&num); err != nil {
		return fmt.Errorf("postgres: read server version: %w", err)
	}
	q := "DROP DATABASE IF EXISTS " + sqleng.QuoteDouble(d.name)
	if num >= 130000 {
		q += " WITH (FORCE)"
	}
	if _, err := c.Exec(ctx, q); err != nil {
		return dbserver.Redact(classify(fmt.Errorf("drop database %s: %w", d.name, err), d.admin, d.name), d.secret)
	}
	return nil
}

// Size sums pg_total_relation_size (heap, TOAST, indexes, free space and
// visibility maps) over the tables in the database: what the data occupies,
// without the WAL and the other databases in the data directory.
func (d *DB) Size(ctx context.Context) (int64, error) {
	var n int64
	err := d.SQL().QueryRowContext(ctx, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind = 'r' AND n.nspname = current_schema()`).Scan(&n)
	if err != nil {
		return -1, fmt.Errorf("postgres: size: %w", err)
	}
	return n, nil
}

// DatabaseDir implements model.DatabaseDirOwner: the database's directory
// in the server's data dir, base/<oid> (its tables, indexes, free space and
// visibility maps; the WAL, pg_wal, is shared by every database). "" when
// the server is not on this host or the database is not in the default
// tablespace.
func (d *DB) DatabaseDir(ctx context.Context) (string, error) {
	if !d.local {
		return "", nil
	}
	var dir string
	var oid int64
	var inDefault bool
	err := d.SQL().QueryRowContext(ctx, `SELECT current_setting('data_directory'), d.oid::bigint,
		d.dattablespace = (SELECT oid FROM pg_tablespace WHERE spcname = 'pg_default')
		FROM pg_database d WHERE d.datname = current_database()`).Scan(&dir, &oid, &inDefault)
	if err != nil {
		return "", fmt.Errorf("postgres: the database's directory (needs superuser or pg_read_all_settings): %w", err)
	}
	if !inDefault {
		return "", nil
	}
	return filepath.Join(dir, "base", strconv.FormatInt(oid, 10)), nil
}

// Stats reports, per table, what explains the numbers: dead tuples left by
// the deletes (vacuum debt), vacuum counts, and the WAL written so far.
func (d *DB) Stats(ctx context.Context) (map[string]any, error) {
	out := map[string]any{}
	rows, err := d.SQL().QueryContext(ctx, `SELECT relname, n_live_tup, n_dead_tup, vacuum_count + autovacuum_count,
		pg_relation_size(relid), pg_indexes_size(relid) FROM pg_stat_user_tables ORDER BY relname`)
	if err != nil {
		return nil, fmt.Errorf("postgres: stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var live, dead, vacuums, heap, idx int64
		if err := rows.Scan(&name, &live, &dead, &vacuums, &heap, &idx); err != nil {
			return nil, fmt.Errorf("postgres: stats: %w", err)
		}
		out[name] = map[string]any{"live_tuples": live, "dead_tuples": dead, "vacuums": vacuums, "heap_bytes": heap, "index_bytes": idx}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: stats: %w", err)
	}
	var wal string
	if err := d.SQL().QueryRowContext(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&wal); err == nil {
		out["wal_lsn"] = wal
	}
	return out, nil
}

// Maintain runs VACUUM (ANALYZE, INDEX_CLEANUP ON) on rumbench's tables, as
// the insert benchmark does: it removes the dead tuples the deletes left
// from the heap and every index (ON: even when few pages have them), sets
// the visibility map bits that let range queries be index-only scans, and
// refreshes the planner statistics.
func (d *DB) Maintain(ctx context.Context) error {
	tables, err := d.Tables(ctx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if _, err := d.SQL().ExecContext(ctx, "VACUUM (ANALYZE, INDEX_CLEANUP ON) "+sqleng.QuoteDouble(t.Name)); err != nil {
			return fmt.Errorf("postgres: VACUUM %s: %w", t.Name, err)
		}
	}
	return nil
}

// Quiesce implements model.Quiescer: it waits until no autovacuum worker
// runs in the database, then runs a CHECKPOINT (as the insert benchmark
// does after its vacuum), so the query steps do not pay for writing back
// the pages the write steps dirtied. A user without the right to
// checkpoint (superuser or pg_checkpoint) gets the wait recorded as
// skipped, not an error.
func (d *DB) Quiesce(ctx context.Context) ([]model.QuiesceWait, error) {
	av, err := model.WaitIdle(ctx, "postgres autovacuum workers in this database (pg_stat_activity)",
		"none running", func(ctx context.Context) (bool, string, error) {
			var n int64
			err := d.SQL().QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE backend_type = 'autovacuum worker' AND datname = current_database()`).Scan(&n)
			return n == 0, fmt.Sprintf("%d autovacuum workers", n), err
		})
	if err != nil {
		return []model.QuiesceWait{av}, err
	}
	cp := model.QuiesceWait{What: "postgres CHECKPOINT", Until: "done", Before: "requested"}
	start := time.Now()
	_, err = d.SQL().ExecContext(ctx, "CHECKPOINT")
	cp.Seconds = time.Since(start).Seconds()
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && pe.Code == "42501":
		cp.After = "skipped: the user may not CHECKPOINT (needs superuser or pg_checkpoint)"
	case err != nil && ctx.Err() != nil:
		cp.After = "interrupted"
	case err != nil:
		return []model.QuiesceWait{av, cp}, fmt.Errorf("postgres: CHECKPOINT: %w", err)
	default:
		cp.After, cp.Reached = "done", true
	}
	return []model.QuiesceWait{av, cp}, nil
}

// ServerProcess returns the postmaster's pid from postmaster.pid in the
// data directory the server reports. It needs a local server (loopback or
// Unix socket), a user allowed to read data_directory (superuser or
// pg_read_all_settings) and a readable data directory.
func (d *DB) ServerProcess(ctx context.Context) (int, string, error) {
	if !d.local {
		return 0, "", fmt.Errorf("postgres: server %s is not on this host: its processes can't be measured from here", d.admin.Host)
	}
	var dir string
	if err := d.SQL().QueryRowContext(ctx, "SHOW data_directory").Scan(&dir); err != nil {
		return 0, "", fmt.Errorf("postgres: SHOW data_directory (needs superuser or pg_read_all_settings): %w", err)
	}
	pid, err := dbserver.ServerPid(filepath.Join(dir, "postmaster.pid"), "postgres", "postmaster")
	if err != nil {
		return 0, dir, fmt.Errorf("postgres: %w", err)
	}
	return pid, dir, nil
}
