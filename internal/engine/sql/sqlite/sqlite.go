// Package sqlite is the "sqlite" engine: SQLite's B-tree through
// github.com/mattn/go-sqlite3 (cgo), one database file in the data dir, WAL
// journal and synchronous=NORMAL by default.
//
// SQLite has one writer at a time. The inserter, the deleter and any other
// writer each have their own connection; they queue for a per-database lock
// in Go (see writeLock) rather than in SQLite's sleeping busy handler, and
// write transactions start with BEGIN IMMEDIATE, so a writer never fails
// with SQLITE_BUSY on a read-to-write lock upgrade. In WAL mode readers
// never wait for the writer. The WAL is checkpointed by the committing
// writer before the next one starts, and restarted when it outgrows
// wal_checkpoint_size (see the wal_checkpoint option).
package sqlite

import (
	"context"
	stdsql "database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"

	"rumbench/internal/engine"
	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/engineopt"
	"rumbench/internal/model"
)

// FileName is the database file inside the data dir.
const FileName = "rumbench.sqlite"

func init() { engine.Register(Driver{}) }

// Driver is the sqlite model.Driver.
type Driver struct{}

func (Driver) Name() string         { return "sqlite" }
func (Driver) Family() model.Family { return model.BTree }
func (Driver) Kind() model.Kind     { return model.Embedded }
func (Driver) Description() string {
	return "SQLite B-tree via mattn/go-sqlite3 (cgo); WAL, synchronous=NORMAL by default"
}

func (Driver) Options() []model.Option { return optionTable(&settings{}).Options() }

// Available opens an in-memory database, which fails when the binary was
// built without cgo (go-sqlite3 then compiles to a stub).
func (Driver) Available() error {
	c, err := (&sqlite3.SQLiteDriver{}).Open(":memory:")
	if err != nil {
		return fmt.Errorf("sqlite needs a cgo build (CGO_ENABLED=1 and a C compiler such as gcc): %w", err)
	}
	return c.Close()
}

// settings are the parsed options.
type settings struct {
	journalMode string
	synchronous string
	cacheBytes  int64
	busyMS      int64
	walPages    int64
	mmapBytes   int64
	pageSize    int64
	ckptMode    string
	ckptBytes   int64
	// journalLimit is journal_size_limit in bytes, -1 for none.
	journalLimit int64
}

// optionTable declares sqlite's options, parsed into s. Values are
// trimmed, and refused in sqlite's own words ("sqlite: bad KEY ...").
func optionTable(s *settings) engineopt.Table {
	choice := func(p *string, key, def, help string, allowed ...string) engineopt.Option {
		return engineopt.Func(key, def, help, func(raw string) (err error) {
			*p, err = oneOf(key, strings.TrimSpace(raw), allowed...)
			return err
		})
	}
	size := func(p *int64, key, def, help string) engineopt.Option {
		return engineopt.Func(key, def, help, func(raw string) (err error) {
			*p, err = parseBytes(key, strings.TrimSpace(raw))
			return err
		})
	}
	count := func(p *int64, key, def, help string, ok func(int64) bool, want string) engineopt.Option {
		return engineopt.Func(key, def, help, func(raw string) (err error) {
			v := strings.TrimSpace(raw)
			if *p, err = strconv.ParseInt(v, 10, 64); err != nil || !ok(*p) {
				return fmt.Errorf("sqlite: bad %s %q: want %s", key, v, want)
			}
			return nil
		})
	}
	return engineopt.Table{
		choice(&s.journalMode, "journal_mode", "wal", "journal: wal, delete, truncate or memory", "wal", "delete", "truncate", "memory"),
		choice(&s.synchronous, "synchronous", "normal", "fsync policy: off, normal or full (normal in WAL mode syncs at checkpoints only)", "off", "normal", "full"),
		size(&s.cacheBytes, "cache_size", model.DefaultCacheSize, "page cache of the whole database, bytes or with KB/MB/GB: divided in equal shares over its open connections (each worker has one), rebalanced as they open and close; --cache-size sets it"),
		count(&s.busyMS, "busy_timeout", "10000", "ms a connection waits for a lock before failing with SQLITE_BUSY", func(n int64) bool { return n >= 0 && n <= 1<<31-1 }, "milliseconds, an integer in 0..2147483647"),
		size(&s.mmapBytes, "mmap_size", "0", "bytes of the file read through mmap (0 = off), bytes or with KB/MB/GB"),
		count(&s.walPages, "wal_autocheckpoint", "1000", "WAL pages after which a commit copies the WAL back into the database file (0 = never; SQLite's default is 1000)", func(n int64) bool { return n >= 0 && n <= 1<<31-1 }, "a page count, an integer in 0..2147483647"),
		count(&s.pageSize, "page_size", "4096", "page size in bytes, a power of two in 512..65536; only applies when the database is created", func(n int64) bool { return n >= 512 && n <= 65536 && n&(n-1) == 0 }, "a power of two in 512..65536"),
		choice(&s.ckptMode, "wal_checkpoint", ckptRestart, "WAL checkpoint policy: auto = only SQLite's automatic PASSIVE checkpoints (wal_autocheckpoint), which never wait for readers, so readers pinning old WAL frames can keep the WAL from restarting; "+
			"restart = also, when a write leaves the WAL file larger than wal_checkpoint_size, the writer runs wal_checkpoint(RESTART), which holds off other writers until readers of old frames finish, so the next write starts the WAL over; "+
			"truncate = like restart but also truncates the WAL file to 0 bytes (less disk at rest, but the file is regrown)", ckptAuto, ckptRestart, ckptTruncate),
		engineopt.Func("wal_checkpoint_size", "64MB", "WAL file size that triggers the restart/truncate checkpoint, bytes or with KB/MB/GB; must exceed journal_size_limit for restart", func(raw string) (err error) {
			v := strings.TrimSpace(raw)
			if s.ckptBytes, err = parseBytes("wal_checkpoint_size", v); err == nil && s.ckptBytes <= 0 {
				err = fmt.Errorf("sqlite: bad wal_checkpoint_size %q: want a positive size", v)
			}
			return err
		}),
		engineopt.Func("journal_size_limit", "16MB", "size the WAL file is trimmed to when a write starts it over after a complete checkpoint (-1 = never trimmed, SQLite's default), bytes or with KB/MB/GB", func(raw string) (err error) {
			if v := strings.TrimSpace(raw); v == "-1" {
				s.journalLimit = -1
			} else {
				s.journalLimit, err = parseBytes("journal_size_limit", v)
			}
			return err
		}),
	}
}

func parseSettings(opts map[string]string) (settings, error) {
	var s settings
	t := optionTable(&s)
	if err := t.Parse(opts); err != nil {
		return s, err
	}
	// After a RESTART checkpoint the WAL file keeps its size until the next
	// commit trims it to journal_size_limit; were that above the threshold,
	// every write would checkpoint again.
	if s.ckptMode == ckptRestart && (s.journalLimit < 0 || s.journalLimit >= s.ckptBytes) {
		given := func(k string) string {
			if v, ok := opts[k]; ok {
				return strings.TrimSpace(v)
			}
			return t.Defaults()[k]
		}
		return s, fmt.Errorf("sqlite: journal_size_limit %s must be at least 0 and below wal_checkpoint_size %s with wal_checkpoint=restart", given("journal_size_limit"), given("wal_checkpoint_size"))
	}
	return s, nil
}

func oneOf(key, v string, allowed ...string) (string, error) {
	lv := strings.ToLower(v)
	for _, a := range allowed {
		if lv == a {
			return a, nil
		}
	}
	return "", fmt.Errorf("sqlite: bad %s %q: want one of %s", key, v, strings.Join(allowed, ", "))
}

// parseBytes reads a byte count: digits with an optional K/KB/KiB, M/MB/MiB,
// G/GB/GiB suffix, all powers of 1024 as is usual for cache sizes.
func parseBytes(key, v string) (int64, error) {
	bad := fmt.Errorf("sqlite: bad %s %q: want bytes, e.g. 67108864, 64MB or 1GB", key, v)
	s := strings.ToUpper(strings.TrimSpace(v))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, bad
	}
	return n * mult, nil
}

// pragmas are run on every new connection, in this order: busy_timeout
// first so the others wait for locks; page_size before journal_mode because
// switching to WAL writes the header of a new database and fixes its page
// size.
func (s settings) pragmas() []string {
	return []string{
		fmt.Sprintf("PRAGMA busy_timeout = %d", s.busyMS),
		fmt.Sprintf("PRAGMA page_size = %d", s.pageSize),
		"PRAGMA journal_mode = " + s.journalMode,
		"PRAGMA synchronous = " + s.synchronous,
		// cache_size is set by the connector's cacheBudget.
		fmt.Sprintf("PRAGMA mmap_size = %d", s.mmapBytes),
		fmt.Sprintf("PRAGMA wal_autocheckpoint = %d", s.walPages),
		fmt.Sprintf("PRAGMA journal_size_limit = %d", s.journalLimit),
	}
}

// readOnly makes c open the existing database file read-only (SQLite's
// mode=ro) with only the pragmas that change nothing in the file.
func (c *connector) readOnly(path string, s settings) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
		return model.NoDataError(fmt.Errorf("sqlite: --data-dir %s holds no database file %s: give the data dir of a sqlite run", filepath.Dir(path), FileName))
	}
	// A read-only connection to a WAL database creates the -wal and -shm
	// files when they are missing. They are missing after a clean close,
	// when the file holds everything: then immutable=1 reads it as it is,
	// creating nothing. Left over from a crash, they hold committed rows
	// and are read (and already exist).
	q := "mode=ro&_txlock=immediate"
	if !exists(abs+"-wal") && !exists(abs+"-shm") {
		q += "&immutable=1"
	}
	c.dsn = (&url.URL{Scheme: "file", Path: abs, RawQuery: q}).String()
	c.pragmas = []string{
		fmt.Sprintf("PRAGMA busy_timeout = %d", s.busyMS),
		fmt.Sprintf("PRAGMA mmap_size = %d", s.mmapBytes),
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// connector opens go-sqlite3 connections and applies the pragmas. It stands
// in for a registered driver name so each Open can have its own settings.
type connector struct {
	drv     *sqlite3.SQLiteDriver
	dsn     string
	pragmas []string
	budget  *cacheBudget
}

func (c *connector) Driver() driver.Driver { return c.drv }

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		conn.Close()
		return nil, errors.New("sqlite: driver connection cannot execute statements")
	}
	for _, p := range c.pragmas {
		if _, err := ex.ExecContext(ctx, p, nil); err != nil {
			conn.Close()
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	sc, ok := conn.(*sqlite3.SQLiteConn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("sqlite: unexpected driver connection %T", conn)
	}
	bc := &budgetConn{SQLiteConn: sc, b: c.budget}
	// Without the handle the connection works; its counters are not read.
	bc.handle, _ = dbHandle(sc)
	if err := c.budget.add(bc); err != nil {
		conn.Close()
		return nil, err
	}
	return bc, nil
}

// DB is an opened SQLite database.
type DB struct {
	*sqleng.DB
	path        string
	journalMode string
	wl          *writeLock
	ckptMode    string
	ckptBytes   int64
	ckpt        ckptStats
	budget      *cacheBudget
	// vfs counts SQLite's file IO; nil (vfsErr says why) when it could
	// not be registered.
	vfs    *countingVFS
	vfsErr error
}

// Close closes every connection, then the counting VFS they used. A
// connection still open (a Conn not closed) keeps the VFS registered: it
// still calls it.
func (db *DB) Close() error {
	err := db.DB.Close()
	if _, open, _ := db.budget.read(); db.vfs != nil && open == 0 {
		db.vfs.free()
		db.vfs = nil
	}
	return err
}

var (
	_ model.DB             = (*DB)(nil)
	_ model.StatsReporter  = (*DB)(nil)
	_ model.Maintainer     = (*DB)(nil)
	_ model.MemoryReporter = (*DB)(nil)
	_ model.CacheOption    = Driver{}
)

// CacheOption implements model.CacheOption.
func (Driver) CacheOption() string { return "cache_size" }

// OwnMemoryBytes implements model.OwnMemory: 13 MB peak anonymous memory
// at the iobound preset (pad 256, 3 indexes) less 5.6 MB page cache is
// 7.4 MB; rounded up.
func (Driver) OwnMemoryBytes() int64 { return 8 << 20 }

// Memory implements model.MemoryReporter: the page cache summed over the
// open connections, each as SQLite reported it after its share was set.
// SQLite has no write buffer apart from its page cache (a write
// transaction's dirty pages are in the cache until it commits to the WAL).
func (db *DB) Memory(context.Context) (model.Memory, error) {
	bytes, n, err := db.budget.read()
	if err != nil {
		return model.Memory{}, err
	}
	return model.Memory{
		CacheBytes:        bytes,
		CacheSource:       fmt.Sprintf("sqlite PRAGMA cache_size read back on each of the %d open connections, summed", n),
		WriteBufferSource: "none apart from the page cache",
	}, nil
}

// ValidateConfig checks the option values without opening anything.
func (Driver) ValidateConfig(cfg model.Config) error {
	_, err := parseSettings(cfg.Options)
	return err
}

var _ model.ConfigValidator = Driver{}

// Open opens or creates the database file in cfg.DataDir.
func (Driver) Open(ctx context.Context, cfg model.Config) (model.DB, error) {
	s, err := parseSettings(cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.DataDir == "" {
		return nil, errors.New("sqlite: no data dir")
	}
	path := filepath.Join(cfg.DataDir, FileName)
	// go-sqlite3 reads parameters after '?' and hands the rest to SQLite
	// as a file name (or a URI when it starts with file:).
	if strings.ContainsAny(path, "?#") || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("sqlite: data dir %q must not contain '?' or '#'", cfg.DataDir)
	}
	// _txlock=immediate makes database/sql transactions (sql.Tx) begin
	// IMMEDIATE too, like the Conn's own write transactions.
	c := &connector{drv: &sqlite3.SQLiteDriver{}, dsn: path + "?_txlock=immediate", pragmas: s.pragmas(),
		budget: &cacheBudget{totalKiB: max(1, s.cacheBytes>>10)}}
	if cfg.ReadOnly {
		if err := c.readOnly(path, s); err != nil {
			return nil, err
		}
	}
	// Every file SQLite opens goes through a VFS that counts its IO
	// (internals.go); without it the engine runs, uncounted.
	vfs, vfsErr := newCountingVFS()
	if vfs != nil {
		c.dsn += "&vfs=" + vfs.name
	}
	sdb := stdsql.OpenDB(c)
	fail := func(err error) (model.DB, error) {
		sdb.Close()
		if vfs != nil {
			vfs.free()
		}
		return nil, err
	}
	// The first connection creates the file with the page size and journal
	// mode before any other connection exists.
	var version, journal string
	var pageSize int64
	if err := sdb.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&version); err != nil {
		return fail(fmt.Errorf("sqlite: open %s: %w", path, err))
	}
	if err := sdb.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&journal); err != nil {
		return fail(fmt.Errorf("sqlite: read journal_mode: %w", err))
	}
	if journal != s.journalMode && !cfg.ReadOnly {
		return fail(fmt.Errorf("sqlite: journal_mode is %s, not the requested %s", journal, s.journalMode))
	}
	if err := sdb.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
		return fail(fmt.Errorf("sqlite: read page_size: %w", err))
	}
	settings := map[string]string{}
	for _, o := range (Driver{}).Options() {
		settings[o.Key] = o.Default
	}
	for k, v := range cfg.Options {
		settings[k] = v
	}
	settings["journal_mode"], settings["synchronous"], settings["wal_checkpoint"] = s.journalMode, s.synchronous, s.ckptMode
	// An existing database keeps the page size it was created with.
	settings["page_size"] = strconv.FormatInt(pageSize, 10)
	info := model.Info{Name: "sqlite", Family: model.BTree, Kind: model.Embedded, Version: version, Settings: settings}
	newDB := sqleng.New
	if cfg.ReadOnly {
		// A reader takes the journal mode the file has.
		settings["journal_mode"] = journal
		newDB = func(ctx context.Context, db *stdsql.DB, d sqleng.Dialect, info model.Info) (*sqleng.DB, error) {
			return sqleng.NewReader(ctx, db, d, info, nil)
		}
	}
	inner, err := newDB(ctx, sdb, Dialect{}, info)
	if cfg.ReadOnly && errors.Is(err, model.ErrNoData) {
		return fail(fmt.Errorf("sqlite: %s %w: give the --data-dir of a sqlite run", path, err))
	}
	if err != nil {
		return fail(fmt.Errorf("sqlite: %w", err))
	}
	return &DB{
		DB: inner, path: path, journalMode: s.journalMode, budget: c.budget, vfs: vfs, vfsErr: vfsErr,
		wl:       newWriteLock(time.Duration(s.busyMS) * time.Millisecond),
		ckptMode: s.ckptMode, ckptBytes: s.ckptBytes,
	}, nil
}

// pragmaInt reads an integer pragma.
func (db *DB) pragmaInt(ctx context.Context, name string) (int64, error) {
	var v int64
	if err := db.SQL().QueryRowContext(ctx, "PRAGMA "+name).Scan(&v); err != nil {
		return 0, fmt.Errorf("sqlite: PRAGMA %s: %w", name, err)
	}
	return v, nil
}

func fileSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sqlite: %w", err)
	}
	return fi.Size(), nil
}

// Size is SQLite's live size: the database's pages (page_count, which
// counts the pages still only in the WAL) less its free pages
// (freelist_count: space deletes left behind for inserts to reuse), times
// page_size. The WAL file itself is in the on-disk footprint only.
func (db *DB) Size(ctx context.Context) (int64, error) {
	pages, err := db.pragmaInt(ctx, "page_count")
	if err != nil {
		return -1, err
	}
	free, err := db.pragmaInt(ctx, "freelist_count")
	if err != nil {
		return -1, err
	}
	pageSize, err := db.pragmaInt(ctx, "page_size")
	if err != nil {
		return -1, err
	}
	return (pages - free) * pageSize, nil
}

// Stats reports the file's shape: pages, free pages (space deletes left
// behind and inserts will reuse) and the WAL's size, and the size-triggered
// checkpoints the writers ran (how many, how many could not restart the WAL
// because readers stayed past busy_timeout, how many failed).
func (db *DB) Stats(ctx context.Context) (map[string]any, error) {
	out := map[string]any{}
	for _, p := range []string{"page_count", "page_size", "freelist_count"} {
		v, err := db.pragmaInt(ctx, p)
		if err != nil {
			return nil, err
		}
		out[p] = v
	}
	for k, f := range map[string]string{"db_file_bytes": db.path, "wal_bytes": db.path + "-wal"} {
		v, err := fileSize(f)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	out["wal_checkpoints"] = db.ckpt.runs.Load()
	out["wal_checkpoints_busy"] = db.ckpt.busy.Load()
	out["wal_checkpoints_failed"] = db.ckpt.failed.Load()
	if e := db.ckpt.lastErr.Load(); e != nil {
		out["wal_checkpoint_last_error"] = *e
	}
	return out, nil
}

// Maintain checkpoints the WAL back into the database file and truncates it,
// then refreshes the planner statistics. It does not VACUUM: that rewrites
// the whole file (twice its size on disk, writers locked out for the
// duration) and erases the fragmentation the churn steps created, which is
// part of what the benchmark measures; SQLite users rarely run it on a live
// database.
//
// It takes the write lock so that the checkpoint is not racing writers.
func (db *DB) Maintain(ctx context.Context) error {
	if err := db.wl.lock(ctx); err != nil {
		return fmt.Errorf("sqlite: maintain: %w", err)
	}
	defer db.wl.unlock()
	var busy, logFrames, done int64
	if err := db.SQL().QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil {
		return fmt.Errorf("sqlite: wal_checkpoint: %w", err)
	}
	if busy != 0 {
		return fmt.Errorf("sqlite: wal_checkpoint(TRUNCATE) could not finish: other connections are still reading or writing")
	}
	if _, err := db.SQL().ExecContext(ctx, "ANALYZE"); err != nil {
		return fmt.Errorf("sqlite: ANALYZE: %w", err)
	}
	return nil
}
