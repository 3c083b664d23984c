//go:build wiredtiger

package wiredtiger

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"rumbench/internal/engine"
	"rumbench/internal/engine/kv"
	"rumbench/internal/engineopt"
	"rumbench/internal/model"
)

const (
	// metaURI holds the kv layer's metadata (table id 0: schemas and the
	// next table id), with whole keys. Every table's primary key and every
	// secondary index is a WiredTiger table of its own, named
	// table:rumbench-<table id>-<index id>-<table>.<index> (file
	// rumbench-...wt), keyed by the kv key without its 5-byte prefix.
	metaURI     = "table:rumbench-meta"
	metaFileURI = "file:rumbench-meta.wt" // its B-tree file, which holds the block_compressor
	spacePrefix = "table:rumbench-"
	// legacyURI is the single table that held everything before rumbench
	// gave each table and index its own.
	legacyURI = "table:rumbench"
	// sessionMax bounds the open sessions: one per concurrent operation,
	// plus WiredTiger's own threads.
	sessionMax = 512
)

func init() { engine.Register(Driver{}) }

// Driver is the wiredtiger model.Driver.
type Driver struct{}

// Name implements model.Driver.
func (Driver) Name() string { return "wiredtiger" }

// Family implements model.Driver.
func (Driver) Family() model.Family { return model.CoWBTree }

// Kind implements model.Driver.
func (Driver) Kind() model.Kind { return model.Embedded }

// Description implements model.Driver.
func (Driver) Description() string {
	return "WiredTiger copy-on-write B-tree with a log (MongoDB's engine, libwiredtiger through cgo), embedded"
}

// Options implements model.Driver.
func (Driver) Options() []model.Option { return optionTable(&settings{}).Options() }

// Available implements model.Driver: libwiredtiger is linked in.
func (Driver) Available() error { return nil }

type settings struct {
	kv         kv.Config // the kv layer's own options (unique_check)
	cacheSize  int64
	compressor string
	// leafPage is leaf_page_max in bytes; leafPageFrom says where it
	// came from ("auto (cache_size/1024)" or "option").
	leafPage     int64
	leafPageFrom string
	// prefixCompression is "indexes", "true" or "false": which keyspaces
	// are created with prefix_compression=true.
	prefixCompression   string
	checkpointWait      int
	dirtyTarget         int
	dirtyTrigger        int
	evictionThreads     int
	log, sync           bool
	extensions          []string
	compressorExtension string
}

// optionTable declares wiredtiger's options, parsed into s.
func optionTable(s *settings) engineopt.Table {
	return append(engineopt.Table{
		engineopt.SizeIn(&s.cacheSize, "cache_size", model.DefaultCacheSize, "WiredTiger cache size in bytes (plain bytes or with a unit: 256MB, 1GiB; units are 1024-based), at least 1MB; --cache-size sets it; the default is MongoDB's minimum: the cache holds dirty pages too, and eviction forces application threads to write pages once 20% of it is dirty", 1<<20, 10<<40, "a size from 1MB to 10TB"),
		engineopt.Choice(&s.compressor, "block_compressor", "snappy", "page compression: none, snappy or zlib (the extension from Debian's libwiredtiger0); fixed when the data dir is created, for all its tables", "none", "snappy", "zlib"),
		engineopt.Choice(&s.prefixCompression, "prefix_compression", "indexes", "compress key prefixes within leaf pages: indexes (MongoDB's layout: its indexes are prefix-compressed, its collections are not), true (every table's primary key too), false; applies to tables and indexes created from then on", "indexes", "true", "false"),
		// After cache_size: auto derives the page from the cache.
		engineopt.Func("leaf_page_max", "auto", "largest B-tree leaf page, 4KB to 32KB in powers of two; auto: WiredTiger's default 32KB, smaller when the cache holds fewer than 1024 such pages (cache_size/1024 rounded down to a power of two, at least 4KB, the allocation unit). WiredTiger 3.2 cannot evict a page an open transaction changed, and a 100-row batch over 3 random-order indexes changes about 300 leaf pages: with 32KB pages in a 5.6MB cache (the iobound preset) they do not fit and the load stops (docs/design.md); applies to tables created from then on", func(raw string) (err error) {
			s.leafPage, s.leafPageFrom, err = leafPageMax(raw, s.cacheSize)
			return err
		}),
		engineopt.Int(&s.checkpointWait, "checkpoint_wait", "60", "seconds between checkpoints (MongoDB's default 60); 0: only at close", 0, 100000),
		engineopt.Bool(&s.log, "log", "true", "write-ahead log (MongoDB's journal); false: commits are durable only at the next checkpoint"),
		engineopt.Int(&s.dirtyTarget, "eviction_dirty_target", "50", "percent of the cache that may be dirty before eviction threads write dirty pages; WiredTiger's and MongoDB's default is 5, sized for caches of gigabytes: with this engine's 256MB cache, random index inserts keep more than 5% of it dirty, and WiredTiger 3.2's eviction threads then rewrite the same hot pages over and over (docs/design.md); checkpoints write dirty pages anyway. 5 with eviction_dirty_trigger=20 gives MongoDB's settings", 1, 99),
		engineopt.Int(&s.dirtyTrigger, "eviction_dirty_trigger", "90", "percent of the cache dirty at which application threads must help evict (WiredTiger's and MongoDB's default 20; InnoDB's innodb_max_dirty_pages_pct is 90); above eviction_dirty_target", 1, 99),
		engineopt.Int(&s.evictionThreads, "eviction_threads", "4", "eviction worker threads (threads_min = threads_max, as MongoDB configures them)", 1, 20),
		engineopt.Bool(&s.sync, "sync", "false", "fsync the log at every commit (true: durable against power loss); the default false writes the log to the OS at every commit (transaction_sync method=none), durable against a process crash"),
	}, kv.OptionTable(&s.kv)...)
}

func parseOptions(opts map[string]string) (settings, error) {
	var s settings
	if err := optionTable(&s).Parse(opts); err != nil {
		return s, err
	}
	if s.dirtyTrigger <= s.dirtyTarget {
		return s, fmt.Errorf("engine options eviction_dirty_trigger=%d and eviction_dirty_target=%d: the trigger must be above the target", s.dirtyTrigger, s.dirtyTarget)
	}
	if s.sync && !s.log {
		return s, errors.New("engine options sync=true and log=false conflict: sync applies to the log")
	}
	// Both compressors are loaded when present, so that a table created
	// with either can be reopened whatever block_compressor says now.
	for _, name := range []string{"snappy", "zlib"} {
		if path := findExtension(name); path != "" {
			s.extensions = append(s.extensions, path)
			if name == s.compressor {
				s.compressorExtension = path
			}
		}
	}
	if s.compressor != "none" && s.compressorExtension == "" {
		return s, fmt.Errorf("engine option block_compressor=%s: libwiredtiger_%s.so not found in %s (install libwiredtiger0)", s.compressor, s.compressor, strings.Join(extensionDirs, ", "))
	}
	return s, nil
}

// extensionDirs are where Debian (multiarch) and source builds put
// WiredTiger's compressor extensions.
var extensionDirs = []string{"/usr/lib/*-linux-gnu", "/usr/lib", "/usr/local/lib"}

func findExtension(name string) string {
	for _, dir := range extensionDirs {
		m, _ := filepath.Glob(filepath.Join(dir, "libwiredtiger_"+name+".so"))
		if len(m) > 0 {
			return m[0]
		}
	}
	return ""
}

// openConfig is the wiredtiger_open configuration.
func (s settings) openConfig() string {
	var b strings.Builder
	fmt.Fprintf(&b, "create,cache_size=%d,session_max=%d,statistics=(fast),checkpoint=(wait=%d)", s.cacheSize, sessionMax, s.checkpointWait)
	fmt.Fprintf(&b, ",eviction_dirty_target=%d,eviction_dirty_trigger=%d,eviction=(threads_min=%d,threads_max=%d)", s.dirtyTarget, s.dirtyTrigger, s.evictionThreads, s.evictionThreads)
	if s.log {
		// method=none writes the log to the OS at commit without a flush.
		method := "none"
		if s.sync {
			method = "fsync"
		}
		fmt.Fprintf(&b, ",log=(enabled=true,archive=true),transaction_sync=(enabled=true,method=%s)", method)
	} else {
		b.WriteString(",log=(enabled=false)")
	}
	if len(s.extensions) > 0 {
		b.WriteString(",extensions=[")
		for i, e := range s.extensions {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(e))
		}
		b.WriteByte(']')
	}
	return b.String()
}

// ValidateConfig checks the option values without opening anything.
func (Driver) ValidateConfig(cfg model.Config) error {
	_, err := parseOptions(cfg.Options)
	return err
}

var _ model.ConfigValidator = Driver{}

// Open implements model.Driver.
func (Driver) Open(ctx context.Context, cfg model.Config) (model.DB, error) {
	s, err := parseOptions(cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.DataDir == "" {
		return nil, errors.New("wiredtiger needs a data dir")
	}
	st, compressor, err := openStore(filepath.Join(cfg.DataDir, "wiredtiger"), s, cfg.ReadOnly)
	if err != nil {
		return nil, err
	}
	method := "none"
	if s.sync {
		method = "fsync"
	}
	info := model.Info{
		Name:    "wiredtiger",
		Family:  model.CoWBTree,
		Kind:    model.Embedded,
		Version: version(),
		Settings: map[string]string{
			"cache_size":             strconv.FormatInt(s.cacheSize, 10),
			"leaf_page_max":          strconv.FormatInt(s.leafPage, 10),
			"leaf_page_max_source":   s.leafPageFrom,
			"block_compressor":       compressor,
			"prefix_compression":     s.prefixCompression,
			"checkpoint_wait":        strconv.Itoa(s.checkpointWait),
			"eviction_dirty_target":  strconv.Itoa(s.dirtyTarget),
			"eviction_dirty_trigger": strconv.Itoa(s.dirtyTrigger),
			"eviction_threads":       strconv.Itoa(s.evictionThreads),
			"log":                    strconv.FormatBool(s.log),
			"sync":                   strconv.FormatBool(s.sync),
			"transaction_sync":       "method=" + method,
			"session_max":            strconv.Itoa(sessionMax),
		},
	}
	if !s.log {
		info.Settings["transaction_sync"] = "none (no log)"
	}
	s.kv.Record(info.Settings)
	d, err := kv.Open(kv.WrapStore(ctx, st), info, s.kv)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("wiredtiger: %w", err)
	}
	return &DB{DB: d, st: st}, nil
}

// openStore opens the connection, creates the metadata table if needed and
// finds the keyspaces' tables. It returns the block compressor the data dir
// actually has (it is fixed when the metadata table is created, and every
// later table gets the same). readOnly opens an existing data dir with
// WiredTiger's readonly=true and creates nothing.
func openStore(dir string, s settings, readOnly bool) (*store, string, error) {
	config := s.openConfig()
	if readOnly {
		if _, err := os.Stat(filepath.Join(dir, "WiredTiger")); err != nil {
			return nil, "", model.NoDataError(fmt.Errorf("wiredtiger: %s holds no wiredtiger store: give the data dir of a wiredtiger run", filepath.Dir(dir)))
		}
		config = strings.TrimPrefix(config, "create,") + ",readonly=true"
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", fmt.Errorf("wiredtiger data dir: %w", err)
	}
	c, err := openConn(dir, config)
	if readOnly && err != nil && strings.Contains(err.Error(), "WT_RUN_RECOVERY") {
		// Recovery writes; a read-only open cannot run it.
		data := filepath.Dir(dir)
		return nil, "", model.SetupError(fmt.Errorf("wiredtiger: %s needs recovery (the process that wrote it was killed), which a read-only check cannot run: open it once with `rumbench run --engine wiredtiger --data-dir %s --steps maint` and the run's --clients, then verify", data, data))
	}
	if err != nil {
		return nil, "", fmt.Errorf("open wiredtiger in %s: %w", dir, err)
	}
	st := &store{conn: c, dir: dir, spaces: map[uint64]string{metaSpace: metaURI}}
	fail := func(err error) (*store, string, error) {
		c.close()
		return nil, "", fmt.Errorf("wiredtiger in %s: %w", dir, err)
	}
	ss, err := c.openSession(st)
	if err != nil {
		return fail(err)
	}
	var legacy, hasMeta bool
	err = ss.metadataKeys(func(uri string) {
		if uri == legacyURI {
			legacy = true
		}
		hasMeta = hasMeta || uri == metaURI
		if ks, ok := parseSpaceURI(uri); ok {
			st.spaces[ks] = uri
		}
	})
	if err != nil {
		return fail(err)
	}
	if legacy {
		return fail(errors.New("the data dir holds the single-table layout of an older rumbench (table:rumbench): remove it or use another --data-dir"))
	}
	if readOnly && !hasMeta {
		c.close()
		return nil, "", model.NoDataError(fmt.Errorf("wiredtiger in %s holds no rumbench tables", dir))
	}
	if !readOnly {
		if err := ss.create(metaURI, fmt.Sprintf("key_format=u,value_format=u,block_compressor=%s,prefix_compression=%v", s.compressor, s.prefixCompression == "true")); err != nil {
			return fail(err)
		}
	}
	meta, err := ss.metadata(metaFileURI)
	if err != nil {
		return fail(err)
	}
	compressor := "none"
	if _, rest, ok := strings.Cut(meta, "block_compressor="); ok {
		if v, _, _ := strings.Cut(rest, ","); v != "" && v != `""` {
			compressor = strings.Trim(v, `"`)
		}
	}
	st.tableConfig = fmt.Sprintf("key_format=u,value_format=u,block_compressor=%s", compressor)
	if compressor == "none" {
		st.tableConfig = "key_format=u,value_format=u"
	}
	st.tableConfig += ",leaf_page_max=" + strconv.FormatInt(s.leafPage, 10)
	st.prefixCompression = s.prefixCompression
	st.put(ss)
	return st, compressor, nil
}

// metaSpace is the keyspace of table id 0, the metadata.
const metaSpace = 0

// route returns the keyspace of a kv key (table id << 8 | index id; 0 for
// the metadata) and the key within it (metadata keys are kept whole).
func route(key []byte) (ks uint64, rest []byte) {
	if len(key) < kv.KeyspacePrefixLen || binary.BigEndian.Uint32(key) == 0 {
		return metaSpace, key
	}
	return uint64(binary.BigEndian.Uint32(key))<<8 | uint64(key[4]), key[kv.KeyspacePrefixLen:]
}

// spaceURI is the table of keyspace ks; name (table.index) is only for
// people reading the data dir.
func spaceURI(ks uint64, name string) string {
	clean := strings.Map(func(r rune) rune {
		if r < 128 && (r == '.' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '_'
	}, name)
	return kv.KeyspaceName(spacePrefix, ks, clean)
}

// parseSpaceURI reads the keyspace from a keyspace table's URI.
func parseSpaceURI(uri string) (uint64, bool) { return kv.ParseKeyspaceName(spacePrefix, uri) }

// DB is the wiredtiger engine: the kv table layer plus WiredTiger's
// statistics and checkpoints.
type DB struct {
	*kv.DB
	st *store
}

var (
	_ model.StatsReporter = (*DB)(nil)
	_ model.Maintainer    = (*DB)(nil)
	_ model.Quiescer      = (*DB)(nil)
)

// statPrefixes are the statistics categories reported in full (non-zero
// values, keyed by WiredTiger's description).
var statPrefixes = []string{"cache: ", "block-manager: ", "log: ", "transaction: ", "reconciliation: "}

// headline statistics under short names.
var headline = map[string]string{
	"cache: bytes currently in the cache":                           "cache_bytes",
	"cache: maximum bytes configured":                               "cache_max_bytes",
	"cache: tracked dirty bytes in the cache":                       "cache_dirty_bytes",
	"cache: bytes read into cache":                                  "cache_bytes_read",
	"cache: bytes written from cache":                               "cache_bytes_written",
	"cache: pages read into cache":                                  "cache_pages_read",
	"cache: pages written from cache":                               "cache_pages_written",
	"cache: modified pages evicted":                                 "evicted_modified_pages",
	"cache: unmodified pages evicted":                               "evicted_unmodified_pages",
	"cache: pages evicted by application threads":                   "evicted_by_app_threads",
	"cache: application threads page read from disk to cache count": "app_thread_page_reads",
	"transaction: transaction checkpoints":                          "checkpoints",
	"transaction: transaction checkpoint total time (msecs)":        "checkpoint_total_ms",
	"transaction: transaction checkpoint max time (msecs)":          "checkpoint_max_ms",
	"transaction: transaction checkpoint most recent time (msecs)":  "checkpoint_last_ms",
	"transaction: transactions committed":                           "commits",
	"transaction: transactions rolled back":                         "rollbacks",
	"block-manager: bytes written":                                  "block_bytes_written",
	"block-manager: bytes read":                                     "block_bytes_read",
	"log: log bytes written":                                        "log_bytes_written",
	"log: log sync operations":                                      "log_syncs",
}

// Stats implements model.StatsReporter with the connection's statistics
// (statistics=(fast); cumulative since open).
func (d *DB) Stats(ctx context.Context) (map[string]any, error) {
	if d.Closed() {
		return nil, errors.New("engine is closed")
	}
	ss, err := d.st.get()
	if err != nil {
		return nil, err
	}
	defer d.st.put(ss)
	all := map[string]int64{}
	out := map[string]any{}
	err = ss.stats("statistics:", func(desc string, val int64) {
		if short, ok := headline[desc]; ok {
			out[short] = val
		}
		if val == 0 {
			return
		}
		for _, p := range statPrefixes {
			if strings.HasPrefix(desc, p) {
				all[desc] = val
				return
			}
		}
	})
	if err != nil {
		return nil, err
	}
	out["statistics"] = all
	out["object_bytes"] = d.st.objectBytes()
	return out, nil
}

// Maintain implements model.Maintainer: a checkpoint, which writes every
// dirty page and lets the log be archived.
func (d *DB) Maintain(ctx context.Context) error {
	if d.Closed() {
		return errors.New("engine is closed")
	}
	ss, err := d.st.get()
	if err != nil {
		return err
	}
	defer d.st.put(ss)
	return ss.checkpoint()
}

// Quiesce implements model.Quiescer: after Maintain's checkpoint, it waits
// until no checkpoint runs and the cache holds at most 1% dirty bytes
// (statistics "transaction checkpoint currently running", "tracked dirty
// bytes in the cache", "maximum bytes configured"), so eviction has nothing
// left to write when the next step starts.
func (d *DB) Quiesce(ctx context.Context) ([]model.QuiesceWait, error) {
	if d.Closed() {
		return nil, errors.New("engine is closed")
	}
	w, err := model.WaitIdle(ctx, "wiredtiger checkpoint and dirty cache (statistics)",
		"no checkpoint running, dirty bytes at most 1% of the cache", func(context.Context) (bool, string, error) {
			ss, err := d.st.get()
			if err != nil {
				return false, "", err
			}
			defer d.st.put(ss)
			var running, dirty, max int64
			err = ss.stats("statistics:", func(desc string, val int64) {
				switch desc {
				case "transaction: transaction checkpoint currently running":
					running = val
				case "cache: tracked dirty bytes in the cache":
					dirty = val
				case "cache: maximum bytes configured":
					max = val
				}
			})
			if err != nil {
				return false, "", err
			}
			return running == 0 && dirty*100 <= max, fmt.Sprintf("checkpoint running %d, %d dirty bytes of a %d-byte cache", running, dirty, max), nil
		})
	return []model.QuiesceWait{w}, err
}

// Leaf page bounds: WiredTiger's allocation unit and its default.
const (
	minLeafPage = 4 << 10
	maxLeafPage = 32 << 10
)

// leafPageMax parses the leaf_page_max option: a power of two from 4KB to
// 32KB, or auto, which keeps at least 1024 leaf pages in the cache.
func leafPageMax(v string, cacheSize int64) (int64, string, error) {
	if v == "auto" {
		p := int64(maxLeafPage)
		for p > minLeafPage && p > cacheSize/1024 {
			p /= 2
		}
		return p, "auto (cache_size/1024)", nil
	}
	n, err := engineopt.ParseSize("leaf_page_max", v)
	if err != nil {
		return 0, "", err
	}
	if n < minLeafPage || n > maxLeafPage || n&(n-1) != 0 {
		return 0, "", fmt.Errorf("engine option leaf_page_max=%q: want auto or a power of two from 4KB to 32KB", v)
	}
	return n, "option", nil
}

// ---- kv.Store on WiredTiger ----
