// Package mysql holds the "innodb" and "myrocks" engines: MariaDB (or
// MySQL) through github.com/go-sql-driver/mysql, with tables in InnoDB
// (update-in-place B-tree) or MyRocks (RocksDB, an LSM tree; Debian's
// mariadb-plugin-rocksdb, loaded with INSTALL SONAME 'ha_rocksdb' when the
// server has not loaded it).
//
// rumbench works in its own database (--database, default "rumbench"),
// created at Open when missing and dropped by DropDatabase (or at Close with
// drop_database=true). A database that exists but holds no rumbench catalog
// and is not empty is refused, so no other data is ever touched.
//
// Statements go as text with the values interpolated by the driver
// (interpolateParams=true), one round trip each; prepare=true switches to
// server-side prepared statements. The client assigns the increasing
// BIGINT primary key (AUTO_INCREMENT would add nothing: the value is sent).
package mysql

import (
	"context"
	stdsql "database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"rumbench/internal/engine"
	"rumbench/internal/engine/catalog"
	"rumbench/internal/engine/dbserver"
	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/engine/sql/blockconn"
	"rumbench/internal/engineopt"
	"rumbench/internal/model"
)

// DefaultDSN addresses the local server over TCP as root with no password.
const DefaultDSN = "root@tcp(127.0.0.1:3306)/"

// EnvDSN overrides DefaultDSN when --dsn is empty.
const EnvDSN = "RUMBENCH_MYSQL_DSN"

func init() {
	engine.Register(Driver{name: "innodb", engineName: "InnoDB", family: model.BTree})
	engine.Register(Driver{name: "myrocks", engineName: "ROCKSDB", family: model.LSM})
}

// Driver is one storage engine of a MariaDB server.
type Driver struct {
	name       string
	engineName string // as in ENGINE=
	family     model.Family
}

func (d Driver) Name() string         { return d.name }
func (d Driver) Family() model.Family { return d.family }
func (Driver) Kind() model.Kind       { return model.Server }

func (d Driver) Description() string {
	what := "MariaDB InnoDB B-tree"
	if d.engineName == "ROCKSDB" {
		what = "MariaDB MyRocks LSM (mariadb-plugin-rocksdb)"
	}
	return what + " via go-sql-driver/mysql; --dsn default $" + EnvDSN + " or " + DefaultDSN
}

func (d Driver) Options() []model.Option { return d.optionTable(&parsed{}).Options() }

// optionTable declares the engine's options, parsed into p: those of both
// engines, then InnoDB's table settings or MyRocks' own.
func (d Driver) optionTable(p *parsed) engineopt.Table {
	boolean := func(dst *bool, key, def, help string) engineopt.Option {
		return engineopt.Func(key, def, help, func(raw string) (err error) {
			*dst, err = parseBool(key, raw)
			return err
		})
	}
	t := engineopt.Table{
		boolean(&p.prepare, "prepare", "false", "server-side prepared statements instead of text statements with interpolated values (true/false)"),
		engineopt.Func(blockconn.OptionKey, "blocking", blockconn.OptionHelp, func(raw string) (err error) {
			p.blocking, err = blockconn.ParseOption(d.name, raw)
			return err
		}),
		boolean(&p.dropOnClose, "drop_database", "false", "drop the rumbench database when the run ends (true/false); kept by default so `rumbench verify` can check it"),
	}
	if d.engineName == "InnoDB" {
		t = append(t,
			engineopt.Func("page_size", "", "InnoDB page size the run needs: 4k, 8k, 16k, 32k or 64k; fixed when the server's data dir is created, so this checks the server's innodb_page_size and refuses to run on another (default: the server's)", named(&p.pageSize, pageSizes, "innodb: bad page_size %q: want 4k, 8k, 16k, 32k or 64k")),
			engineopt.Func("row_format", "", "ROW_FORMAT of the tables: dynamic, compact or compressed (table compression, with key_block_size) (default: the server's innodb_default_row_format)", func(raw string) error {
				switch rf := strings.ToLower(raw); rf {
				case "", "dynamic", "compact", "compressed":
					p.rowFormat = rf
					return nil
				}
				return fmt.Errorf("innodb: bad row_format %q: want dynamic, compact or compressed", raw)
			}),
			// Checked with row_format=compressed only (tableOptions).
			engineopt.Text(&p.keyBlockSize, "key_block_size", "8", "KEY_BLOCK_SIZE in KB of row_format=compressed: 1, 2, 4, 8 or 16 (8 with 16k pages is the published 2X compression)"))
	}
	if d.engineName == "ROCKSDB" {
		t = append(t,
			engineopt.Func("compression", "", "MyRocks compression the run needs: none, snappy, lz4, zstd or zlib; set by the server's rocksdb_default_cf_options at start, so this checks it and refuses to run on another (default: the server's)", named(&p.compression, rocksCompression, "myrocks: bad compression %q: want none, snappy, lz4, zstd or zlib")),
			boolean(&p.installPlugin, "install_plugin", "false", "run INSTALL SONAME 'ha_rocksdb' when the server has not loaded MyRocks (true/false; crashes MariaDB 10.11's Debian build, so off by default)"))
	}
	return t
}

// Available needs nothing local (the driver is pure Go); whether the
// server is reachable is only known with the DSN, at Open.
func (Driver) Available() error { return nil }

// settingNames are the server variables recorded in run.json, per engine.
var (
	commonSettings = []string{"version_comment", "log_bin", "sync_binlog", "binlog_format", "tx_isolation", "transaction_isolation", "max_connections"}
	innodbSettings = []string{"innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "innodb_flush_method",
		"innodb_doublewrite", "innodb_log_file_size", "innodb_log_buffer_size", "innodb_io_capacity",
		"innodb_io_capacity_max", "innodb_page_size", "innodb_file_per_table", "innodb_adaptive_hash_index",
		"innodb_change_buffering", "innodb_compression_default", "innodb_autoinc_lock_mode"}
	rocksdbSettings = []string{"rocksdb_block_cache_size", "rocksdb_flush_log_at_trx_commit", "rocksdb_default_cf_options",
		"rocksdb_max_background_jobs", "rocksdb_block_size", "rocksdb_bytes_per_sync", "rocksdb_wal_bytes_per_sync",
		"rocksdb_use_direct_reads", "rocksdb_use_direct_io_for_flush_and_compaction", "rocksdb_max_total_wal_size",
		"rocksdb_write_disable_wal", "rocksdb_cache_index_and_filter_blocks", "rocksdb_table_cache_numshardbits",
		"rocksdb_max_open_files", "rocksdb_force_compute_memtable_stats"}
)

// DB is an opened MariaDB database for one storage engine.
type DB struct {
	*sqleng.DB
	cfg      *mysql.Config // the parsed DSN, without a database
	name     string
	engine   string
	local    bool
	dropOnCl bool
	secret   string
	// installPlugin allows INSTALL SONAME 'ha_rocksdb'.
	installPlugin bool
}

var (
	_ model.DB                 = (*DB)(nil)
	_ model.ProcessOwner       = (*DB)(nil)
	_ model.Maintainer         = (*DB)(nil)
	_ model.Quiescer           = (*DB)(nil)
	_ model.StatsReporter      = (*DB)(nil)
	_ dbserver.DatabaseDropper = (*DB)(nil)
)

// discard silences the driver's own logging (it prints connection errors
// that rumbench reports itself).
type discard struct{}

func (discard) Print(...any) {}

func parseBool(key, v string) (bool, error) {
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("mysql: bad %s %q: want true or false", key, v)
	}
	return b, nil
}

// parsed is a configuration checked without connecting.
type parsed struct {
	mc                                  *mysql.Config
	name                                string
	prepare, dropOnClose, installPlugin bool
	blocking                            bool   // client_io=blocking
	pageSize                            int64  // bytes; 0: any
	rowFormat                           string // table options; "": none
	keyBlockSize                        string // with row_format=compressed
	compression                         string // RocksDB's name (kLZ4Compression); "": any
}

// pageSizes are the InnoDB page sizes a server can be initialised with.
var pageSizes = map[string]int64{"4k": 4096, "8k": 8192, "16k": 16384, "32k": 32768, "64k": 65536,
	"4096": 4096, "8192": 8192, "16384": 16384, "32768": 32768, "65536": 65536}

// rocksCompression maps the compression option to RocksDB's names.
var rocksCompression = map[string]string{"none": "kNoCompression", "snappy": "kSnappyCompression",
	"lz4": "kLZ4Compression", "zstd": "kZSTD", "zlib": "kZlibCompression"}

// named parses an option whose value names an entry of m (in any case),
// stored in dst; "" leaves dst as it is (the server's setting), another
// value is refused with bad (a format taking the value).
func named[T any](dst *T, m map[string]T, bad string) func(raw string) error {
	return func(raw string) error {
		if v := strings.ToLower(raw); v != "" {
			x, ok := m[v]
			if !ok {
				return fmt.Errorf(bad, raw)
			}
			*dst = x
		}
		return nil
	}
}

// tableOptions turns row_format (and key_block_size) into the tables'
// options.
func (p *parsed) tableOptions() error {
	switch p.rowFormat {
	case "dynamic", "compact":
		p.rowFormat = " ROW_FORMAT=" + strings.ToUpper(p.rowFormat)
	case "compressed":
		kb := p.keyBlockSize
		switch kb {
		case "", "8":
			kb = "8"
		case "1", "2", "4", "16":
		default:
			return fmt.Errorf("innodb: bad key_block_size %q: want 1, 2, 4, 8 or 16 (KB)", kb)
		}
		p.rowFormat = " ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=" + kb
	}
	return nil
}

// checkServerSettings refuses a server whose fixed settings differ from
// those the run asked for (page_size, compression).
func (p *parsed) checkServerSettings(eng string, settings map[string]string) error {
	if p.pageSize > 0 {
		if got := settings["innodb_page_size"]; got != strconv.FormatInt(p.pageSize, 10) {
			return fmt.Errorf("%s: the server's innodb_page_size is %s, the run asks for page_size %d: InnoDB fixes it when the data dir is created, so run on a server initialised with --innodb-page-size=%d (a managed server), or drop page_size", eng, orUnknown(got), p.pageSize, p.pageSize)
		}
	}
	if p.compression != "" {
		cf := settings["rocksdb_default_cf_options"]
		got := "kSnappyCompression (RocksDB's default)"
		if i := strings.Index(cf, "compression="); i >= 0 {
			got = cf[i+len("compression="):]
			if j := strings.IndexByte(got, ';'); j >= 0 {
				got = got[:j]
			}
		}
		if !strings.HasPrefix(got, p.compression) {
			return fmt.Errorf("%s: the server's MyRocks compression is %s, the run asks for %s: it is set at server start, so run on a server started with rocksdb_default_cf_options=compression=%s (a managed server), or drop compression", eng, got, p.compression, p.compression)
		}
	}
	return nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// ServerAddress is the address dsn ("" for $RUMBENCH_MYSQL_DSN, else the
// local server) reaches.
func (d Driver) ServerAddress(dsn string) (string, string, error) {
	dsn = dbserver.DSN(dsn, EnvDSN, DefaultDSN)
	if strings.Contains(dsn, "://") {
		return "", "", fmt.Errorf("%s: bad --dsn", d.name)
	}
	mc, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", "", fmt.Errorf("%s: bad --dsn", d.name)
	}
	return mc.Net, mc.Addr, nil
}

var _ model.ServerAddress = Driver{}

// ConnectionRoom is how many more connections may be opened: the server's
// max_connections less Threads_connected (this one left out).
func (d Driver) ConnectionRoom(ctx context.Context, cfg model.Config) (int, string, error) {
	p, err := d.parseConfig(cfg)
	if err != nil {
		return 0, "", err
	}
	mc := p.mc.Clone()
	mc.DBName = ""
	mc.Logger = discard{}
	if mc.Timeout == 0 {
		mc.Timeout = 10 * time.Second
	}
	addr := mc.Net + "(" + mc.Addr + ")"
	if err := greeting(ctx, d.name, mc); err != nil {
		return 0, "", dbserver.Redact(err, mc.Passwd)
	}
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return 0, "", dbserver.Redact(fmt.Errorf("%s: %w", d.name, err), mc.Passwd)
	}
	db := stdsql.OpenDB(conn)
	defer db.Close()
	db.SetMaxOpenConns(1)
	var limit, used int
	if err := db.QueryRowContext(ctx, "SELECT @@max_connections").Scan(&limit); err != nil {
		return 0, "", dbserver.Redact(classify(d.name, err, mc, p.name), mc.Passwd)
	}
	var name string
	if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Threads_connected'").Scan(&name, &used); err != nil {
		return 0, "", dbserver.Redact(classify(d.name, err, mc, p.name), mc.Passwd)
	}
	used-- // this connection
	return max(limit-used, 0), fmt.Sprintf("%s at %s: max_connections %d, %d in use", d.name, addr, limit, used), nil
}

var _ model.ConnectionRoom = Driver{}

// parseConfig checks the DSN's form, the database name and the option
// values; it connects to nothing.
func (d Driver) parseConfig(cfg model.Config) (parsed, error) {
	var p parsed
	dsn := dbserver.DSN(cfg.DSN, EnvDSN, DefaultDSN)
	if strings.Contains(dsn, "://") {
		return p, fmt.Errorf("%s: --dsn looks like a URL; give a go-sql-driver DSN such as user:password@tcp(host:3306)/ or user@unix(/run/mysqld/mysqld.sock)/", d.name)
	}
	p.name = cfg.Database
	if p.name == "" {
		p.name = "rumbench"
	}
	if err := dbserver.CheckDatabaseName(p.name); err != nil {
		return p, fmt.Errorf("%s: %w", d.name, err)
	}
	var err error
	if err = d.optionTable(&p).Parse(cfg.Options); err != nil {
		return p, err
	}
	if err = p.tableOptions(); err != nil {
		return p, err
	}
	if p.mc, err = mysql.ParseDSN(dsn); err != nil {
		return p, fmt.Errorf("%s: bad --dsn (want user:password@tcp(host:3306)/ or user@unix(/path/mysqld.sock)/): %w", d.name, err)
	}
	return p, nil
}

// ValidateConfig checks the DSN's form and the option values without
// connecting.
func (d Driver) ValidateConfig(cfg model.Config) error {
	_, err := d.parseConfig(cfg)
	return err
}

var _ model.ConfigValidator = Driver{}

// Open connects, loads MyRocks if needed, creates the database if missing
// and records the settings.
func (d Driver) Open(ctx context.Context, cfg model.Config) (model.DB, error) {
	p, err := d.parseConfig(cfg)
	if err != nil {
		return nil, err
	}
	mc, name, prepare, dropOnClose, installPlugin := p.mc, p.name, p.prepare, p.dropOnClose, p.installPlugin
	if cfg.ReadOnly {
		// Reading never drops what it reads, nor loads a plugin.
		dropOnClose, installPlugin = false, false
	}
	secret := mc.Passwd
	mc.DBName = ""
	mc.Logger = discard{}
	if mc.Timeout == 0 {
		mc.Timeout = 10 * time.Second
	}
	// Update reports rows matched, not rows changed (an update to the
	// same value still found its row).
	mc.ClientFoundRows = true
	mc.InterpolateParams = !prepare
	local := mc.Net == "unix" || dbserver.LocalHost(mc.Addr)
	db := &DB{cfg: mc, name: name, engine: d.engineName, local: local, dropOnCl: dropOnClose, secret: secret, installPlugin: installPlugin}
	version, settings, err := db.ensureDatabase(ctx, d.name, cfg.ReadOnly)
	if err != nil {
		return nil, dbserver.Redact(err, secret)
	}

	work := mc.Clone()
	work.DBName = name
	conn, err := mysql.NewConnector(work)
	if err != nil {
		return nil, dbserver.Redact(fmt.Errorf("%s: %w", d.name, err), secret)
	}
	sdb := stdsql.OpenDB(conn)
	// The pool serves schema changes (index builds run one per client at
	// once), the catalog and statistics; workers open sessions of their
	// own (session.go), one connection each for a whole step. Unbounded:
	// the server's max_connections is the limit (its error says so).
	sdb.SetMaxOpenConns(0)
	sdb.SetMaxIdleConns(64)
	settings["database"] = name
	settings["address"] = mc.Net + "(" + mc.Addr + ")"
	settings["prepare"] = strconv.FormatBool(prepare)
	settings[blockconn.OptionKey] = "netpoller"
	if p.blocking {
		settings[blockconn.OptionKey] = "blocking"
	}
	settings["drop_database"] = strconv.FormatBool(dropOnClose)
	if p.rowFormat != "" {
		settings["table_options"] = strings.TrimSpace(p.rowFormat)
	}
	if err := p.checkServerSettings(d.name, settings); err != nil {
		sdb.Close()
		return nil, err
	}
	info := model.Info{Name: d.name, Family: d.family, Kind: model.Server, Version: version, Settings: settings}
	settings["client"] = "driver.Conn of go-sql-driver/mysql (no database/sql pool), one connection per worker"
	sessions := func(ctx context.Context) (sqleng.Session, error) {
		s, err := openSession(ctx, work, !prepare, p.blocking)
		if err != nil {
			return nil, dbserver.Redact(classify(d.name, err, mc, name), secret)
		}
		return s, nil
	}
	dialect := Dialect{Engine: d.engineName, Prepare: prepare, RowFormat: p.rowFormat}
	if cfg.ReadOnly {
		inner, err := sqleng.NewReader(ctx, sdb, dialect, info, sessions)
		if err != nil {
			sdb.Close()
			return nil, dbserver.Redact(fmt.Errorf("%s: database %s at %s %w: give the --database a run used", d.name, name, settings["address"], err), secret)
		}
		db.DB = inner
		return db, nil
	}
	inner, err := sqleng.NewWithSessions(ctx, sdb, dialect, info, sessions)
	if err != nil {
		sdb.Close()
		return nil, dbserver.Redact(classify(d.name, fmt.Errorf("%s: %w", d.name, err), mc, name), secret)
	}
	db.DB = inner
	return db, nil
}

// admin opens a one-connection pool without a default database.
func (db *DB) admin() (*stdsql.DB, error) {
	c, err := mysql.NewConnector(db.cfg)
	if err != nil {
		return nil, err
	}
	p := stdsql.OpenDB(c)
	p.SetMaxOpenConns(1)
	return p, nil
}

// ensureDatabase checks the server version, loads the storage engine and
// creates the database when missing (or, readOnly, says it is missing). It
// returns the version and settings.
func (db *DB) ensureDatabase(ctx context.Context, eng string, readOnly bool) (string, map[string]string, error) {
	if err := greeting(ctx, eng, db.cfg); err != nil {
		return "", nil, err
	}
	a, err := db.admin()
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", eng, err)
	}
	defer a.Close()
	var version string
	if err := a.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return "", nil, classify(eng, err, db.cfg, db.name)
	}
	if err := checkVersion(version); err != nil {
		return "", nil, fmt.Errorf("%s: %w", eng, err)
	}
	if err := db.ensureEngine(ctx, a, eng); err != nil {
		return "", nil, err
	}
	settings, err := readSettings(ctx, a, db.engine)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", eng, err)
	}
	settings["server_version"] = version
	var n int
	if err := a.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", db.name).Scan(&n); err != nil {
		return "", nil, classify(eng, err, db.cfg, db.name)
	}
	if n > 0 {
		return version, settings, db.checkOurs(ctx, a, eng)
	}
	if readOnly {
		return "", nil, model.NoDataError(fmt.Errorf("%s: database %s does not exist at %s(%s): give the --database a run used", eng, db.name, db.cfg.Net, db.cfg.Addr))
	}
	// The name was checked to be a plain identifier.
	if _, err := a.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+sqleng.QuoteBacktick(db.name)); err != nil {
		return "", nil, classify(eng, fmt.Errorf("create database %s: %w", db.name, err), db.cfg, db.name)
	}
	return version, settings, nil
}

// greeting connects to the server's address and waits, up to the DSN's
// timeout (10 s by default), for the greeting a MariaDB/MySQL server sends
// first. The driver, given an address that accepts connections but never
// greets (a firewall, a proxy, another service), waits and then says only
// "invalid connection"; this says which address and what to do.
func greeting(ctx context.Context, eng string, cfg *mysql.Config) error {
	addr := cfg.Net + "(" + cfg.Addr + ")"
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, cfg.Net, cfg.Addr)
	if err != nil {
		if ctx.Err() != nil && context.Cause(ctx) == context.DeadlineExceeded {
			err = fmt.Errorf("no answer in %s", timeout)
		}
		return model.SetupError(fmt.Errorf("%s: cannot reach the server at %s (%v): start MariaDB there or give its address with --dsn or $%s (e.g. root@tcp(127.0.0.1:3306)/)", eng, addr, dbserver.LastLine(err), EnvDSN))
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetReadDeadline(dl) //nolint:errcheck // a failed deadline shows as a read error
	}
	var b [5]byte
	if _, err := io.ReadFull(c, b[:]); err != nil {
		why := "closed it without a word"
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			why = fmt.Sprintf("sent nothing in %s", timeout)
		}
		if ctx.Err() != nil && !errors.As(err, &ne) {
			return ctx.Err()
		}
		return model.SetupError(fmt.Errorf("%s: no MariaDB server answered at %s (it accepted the connection but %s): check the host and port in --dsn or $%s (e.g. root@tcp(127.0.0.1:3306)/)", eng, addr, why, EnvDSN))
	}
	return nil
}

// checkVersion accepts MariaDB 10.5+ and MySQL 8.0+.
func checkVersion(v string) error {
	num, _, _ := strings.Cut(v, "-")
	parts := strings.Split(num, ".")
	if len(parts) < 2 {
		return fmt.Errorf("cannot parse server version %q", v)
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return fmt.Errorf("cannot parse server version %q", v)
	}
	if strings.Contains(strings.ToLower(v), "mariadb") {
		if major < 10 || major == 10 && minor < 5 {
			return fmt.Errorf("server version %s is not supported: rumbench needs MariaDB 10.5 or newer", v)
		}
		return nil
	}
	if major < 8 {
		return fmt.Errorf("server version %s is not supported: rumbench needs MariaDB 10.5+ or MySQL 8.0+", v)
	}
	return nil
}

// ensureEngine checks that the storage engine is there; MyRocks is loaded
// with INSTALL SONAME when the server has the plugin but not loaded.
func (db *DB) ensureEngine(ctx context.Context, a *stdsql.DB, eng string) error {
	support := func() (string, error) {
		var s string
		err := a.QueryRowContext(ctx, "SELECT SUPPORT FROM information_schema.ENGINES WHERE ENGINE = ?", db.engine).Scan(&s)
		if errors.Is(err, stdsql.ErrNoRows) {
			return "", nil
		}
		return s, err
	}
	s, err := support()
	if err != nil {
		return classify(eng, fmt.Errorf("look up storage engine %s: %w", db.engine, err), db.cfg, db.name)
	}
	if s == "YES" || s == "DEFAULT" {
		return nil
	}
	if db.engine != "ROCKSDB" {
		return fmt.Errorf("%s: the server's %s storage engine is not enabled (SUPPORT=%q): enable it in the server configuration", eng, db.engine, s)
	}
	if !db.installPlugin {
		return fmt.Errorf("%s: the server has not loaded the ROCKSDB storage engine: install mariadb-plugin-rocksdb on the server host and restart the server with --plugin-load-add=ha_rocksdb.so (or give --engine-opt install_plugin=true to run INSTALL SONAME 'ha_rocksdb', which crashes MariaDB 10.11's Debian build)", eng)
	}
	if _, err := a.ExecContext(ctx, "INSTALL SONAME 'ha_rocksdb'"); err != nil {
		return fmt.Errorf("%s: the ROCKSDB storage engine is not loaded and INSTALL SONAME 'ha_rocksdb' failed (%s): install mariadb-plugin-rocksdb on the server host and restart the server with --plugin-load-add=ha_rocksdb.so", eng, oneLine(err))
	}
	if s, err = support(); err != nil || (s != "YES" && s != "DEFAULT") {
		return fmt.Errorf("%s: INSTALL SONAME 'ha_rocksdb' ran but the ROCKSDB engine is not usable (SUPPORT=%q, %v): check the server's error log", eng, s, err)
	}
	return nil
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

// readSettings reads the common and the engine's server variables.
func readSettings(ctx context.Context, a *stdsql.DB, engineName string) (map[string]string, error) {
	names := append([]string(nil), commonSettings...)
	if engineName == "ROCKSDB" {
		names = append(names, rocksdbSettings...)
	} else {
		names = append(names, innodbSettings...)
	}
	q := "SHOW GLOBAL VARIABLES WHERE Variable_name IN (" + strings.TrimSuffix(strings.Repeat("?,", len(names)), ",") + ")"
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = n
	}
	rows, err := a.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read server variables: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("read server variables: %w", err)
		}
		out[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read server variables: %w", err)
	}
	return out, nil
}

// checkOurs refuses an existing database that holds tables but no rumbench
// catalog: it is someone else's.
func (db *DB) checkOurs(ctx context.Context, a *stdsql.DB, eng string) error {
	var tables, hasCatalog int
	err := a.QueryRowContext(ctx, "SELECT COUNT(*), COALESCE(SUM(TABLE_NAME = ?), 0) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?",
		catalog.Table, db.name).Scan(&tables, &hasCatalog)
	if err != nil {
		return classify(eng, fmt.Errorf("inspect database %s: %w", db.name, err), db.cfg, db.name)
	}
	if hasCatalog == 0 && tables > 0 {
		return model.SetupError(fmt.Errorf("%s: database %s at %s(%s) exists and was not created by rumbench (%d tables, no %s): choose another --database", eng, db.name, db.cfg.Net, db.cfg.Addr, tables, catalog.Table))
	}
	return nil
}

// classify turns connection and permission failures into one-line errors
// naming the fix.
func classify(eng string, err error, cfg *mysql.Config, dbName string) error {
	addr := cfg.Net + "(" + cfg.Addr + ")"
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1045, 1698: // access denied (bad password; unix_socket user mismatch)
			return model.SetupError(fmt.Errorf("%s: authentication failed for user %q at %s (%s): check the user and password in --dsn or $%s", eng, cfg.User, addr, me.Message, EnvDSN))
		case 1044, 1142, 1227, 1370: // no privilege on the database, command, SUPER, routine
			return model.SetupError(fmt.Errorf("%s: user %q lacks a privilege (%s): GRANT ALL ON %s.* TO the user, or use an administrative user", eng, cfg.User, me.Message, sqleng.QuoteBacktick(dbName)))
		case 1040: // too many connections
			return model.SetupError(fmt.Errorf("%s: the server at %s refused a connection (%s): use fewer --clients, or raise its max_connections", eng, addr, me.Message))
		}
		return fmt.Errorf("%s: %w", eng, err)
	}
	if errors.Is(err, mysql.ErrInvalidConn) {
		return model.SetupError(fmt.Errorf("%s: the server at %s closed the connection (%v): check that --dsn or $%s names a MariaDB server, and its log", eng, addr, err, EnvDSN))
	}
	if dbserver.Unreachable(err) {
		return model.SetupError(fmt.Errorf("%s: cannot reach the server at %s: start MariaDB there or give its address with --dsn or $%s (e.g. root@tcp(127.0.0.1:3306)/): %w", eng, addr, EnvDSN, err))
	}
	return fmt.Errorf("%s: %w", eng, err)
}
