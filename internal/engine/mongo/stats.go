package mongo

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"rumbench/internal/engine/dbserver"
)

// asInt64 reads a numeric BSON value decoded into bson.M (int32, int64 or
// an integral double; servers differ in which they send).
func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<62 {
			return int64(x), true
		}
	}
	return 0, false
}

// Size is what the database occupies in the storage engine: dbStats'
// storageSize (allocated to collections, free space included) plus
// indexSize. It excludes the journal and the other databases of the server.
func (d *DB) Size(ctx context.Context) (int64, error) {
	var st bson.M
	if err := d.db.RunCommand(ctx, bson.D{{Key: "dbStats", Value: 1}}).Decode(&st); err != nil {
		return -1, fmt.Errorf("mongodb: dbStats: %w", err)
	}
	storage, ok1 := asInt64(st["storageSize"])
	index, ok2 := asInt64(st["indexSize"])
	if !ok1 && !ok2 {
		if total, ok := asInt64(st["totalSize"]); ok {
			return total, nil
		}
		return -1, nil
	}
	return storage + index, nil
}

// wtStats are the serverStatus().wiredTiger counters reported as engine
// statistics, by section and name, under rumbench's key. They explain the
// numbers as the embedded wiredtiger engine's statistics do: cache
// occupancy and eviction (reads and write-back), block-manager IO, the
// journal and checkpoints.
var wtStats = []struct{ section, name, key string }{
	{"cache", "bytes currently in the cache", "cache_bytes"},
	{"cache", "maximum bytes configured", "cache_max_bytes"},
	{"cache", "tracked dirty bytes in the cache", "cache_dirty_bytes"},
	{"cache", "pages read into cache", "pages_read_into_cache"},
	{"cache", "pages written from cache", "pages_written_from_cache"},
	{"cache", "modified pages evicted", "evicted_modified_pages"},
	{"cache", "unmodified pages evicted", "evicted_unmodified_pages"},
	{"block-manager", "bytes read", "block_bytes_read"},
	{"block-manager", "bytes written", "block_bytes_written"},
	{"block-manager", "blocks read", "block_reads"},
	{"block-manager", "blocks written", "block_writes"},
	{"log", "log bytes written", "log_bytes_written"},
	{"log", "log sync operations", "log_syncs"},
	{"transaction", "transaction checkpoints", "checkpoints"},
}

// Stats reports serverStatus' WiredTiger cache, block-manager, log and
// checkpoint counters (when the server has that section: FerretDB does
// not), its operation counters, and per collection the document count and
// the data, storage and index sizes (collStats).
func (d *DB) Stats(ctx context.Context) (map[string]any, error) {
	out := map[string]any{}
	status, err := d.serverStatus(ctx)
	if err != nil {
		// serverStatus needs clusterMonitor; the sizes below need less.
		out["server_status_error"] = dbserver.OneLine(err).Error()
	}
	if wt, ok := status["wiredTiger"].(bson.M); ok {
		for _, s := range wtStats {
			if sec, ok := wt[s.section].(bson.M); ok {
				if v, ok := asInt64(sec[s.name]); ok {
					out[s.key] = v
				}
			}
		}
	} else if err == nil {
		out["wiredtiger"] = "absent: serverStatus has no wiredTiger section (not a WiredTiger server, e.g. FerretDB)"
	}
	if ops, ok := status["opcounters"].(bson.M); ok {
		oc := map[string]int64{}
		for k, v := range ops {
			if n, ok := asInt64(v); ok {
				oc[k] = n
			}
		}
		out["opcounters"] = oc
	}
	tables, err := d.Tables(ctx)
	if err != nil {
		return out, err
	}
	colls := map[string]any{}
	for _, t := range tables {
		var cs bson.M
		if err := d.db.RunCommand(ctx, bson.D{{Key: "collStats", Value: t.Name}}).Decode(&cs); err != nil {
			colls[t.Name] = map[string]any{"error": dbserver.OneLine(err).Error()}
			continue
		}
		c := map[string]int64{}
		for _, k := range [][2]string{{"count", "count"}, {"size", "data_bytes"}, {"storageSize", "storage_bytes"}, {"totalIndexSize", "index_bytes"}} {
			if v, ok := asInt64(cs[k[0]]); ok {
				c[k[1]] = v
			}
		}
		colls[t.Name] = c
	}
	out["collections"] = colls
	return out, nil
}

// ServerProcess finds the local server's pid: the one serverStatus reports
// (mongod does), checked against /proc, else the process listening on the
// DSN's port. The data dir is mongod's storage.dbPath (getCmdLineOpts), or
// the directory of FerretDB's --sqlite-url.
func (d *DB) ServerProcess(ctx context.Context) (int, string, error) {
	if !d.local {
		return 0, "", fmt.Errorf("mongodb: server %s is not on this host: its processes can't be measured from here", d.host)
	}
	pid := 0
	if status, err := d.serverStatus(ctx); err == nil {
		if p, ok := asInt64(status["pid"]); ok && p > 0 && isServerProcess(int(p)) {
			pid = int(p)
		}
	}
	if pid == 0 {
		_, portStr, err := splitPort(d.host)
		if err != nil {
			return 0, "", fmt.Errorf("mongodb: %w", err)
		}
		port, _ := strconv.Atoi(portStr)
		if pid, err = listenerPid(port); err != nil {
			return 0, "", fmt.Errorf("mongodb: server pid: %w", err)
		}
	}
	return pid, d.dataDir(ctx, pid), nil
}

func splitPort(hostport string) (string, string, error) {
	if !strings.Contains(hostport, ":") || strings.HasSuffix(hostport, "]") {
		return hostport, "27017", nil
	}
	i := strings.LastIndex(hostport, ":")
	return hostport[:i], hostport[i+1:], nil
}

// isServerProcess reports whether pid is a process here whose command is a
// MongoDB-compatible server.
func isServerProcess(pid int) bool {
	comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	if err != nil {
		return false
	}
	name := strings.TrimSpace(string(comm))
	return strings.Contains(name, "mongo") || strings.Contains(name, "ferretdb")
}

// dataDir returns the server's data directory, or "" when unknown.
func (d *DB) dataDir(ctx context.Context, pid int) string {
	var opts bson.M
	if err := d.client.Database("admin").RunCommand(ctx, bson.D{{Key: "getCmdLineOpts", Value: 1}}).Decode(&opts); err == nil {
		if p, ok := opts["parsed"].(bson.M); ok {
			if s, ok := p["storage"].(bson.M); ok {
				if dir, ok := s["dbPath"].(string); ok && dir != "" {
					return dir
				}
			}
		}
	}
	// FerretDB (or a mongod without getCmdLineOpts rights): read the
	// process's own command line.
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return ""
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	for i, a := range args {
		for _, flag := range []string{"--sqlite-url", "--dbpath"} {
			v, ok := strings.CutPrefix(a, flag+"=")
			if !ok && a == flag && i+1 < len(args) {
				v, ok = args[i+1], true
			}
			if ok {
				v = strings.TrimPrefix(v, "file:")
				if j := strings.IndexByte(v, '?'); j >= 0 {
					v = v[:j]
				}
				if v != "" {
					if !filepath.IsAbs(v) {
						if cwd, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "cwd")); err == nil {
							v = filepath.Join(cwd, v)
						}
					}
					return filepath.Clean(v)
				}
			}
		}
	}
	return ""
}

// serverStatus runs serverStatus and decodes it with every nested document
// a bson.M (the driver would make them bson.D when decoding into a bson.M,
// and the sections, wiredTiger.cache and the like, are read as maps). The
// error is the command's, unwrapped, so callers can tell a refusal.
func (d *DB) serverStatus(ctx context.Context) (bson.M, error) {
	raw, err := d.client.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if err != nil {
		return nil, err
	}
	dec := bson.NewDecoder(bson.NewDocumentReader(bytes.NewReader(raw)))
	dec.DefaultDocumentM()
	var status bson.M
	if err := dec.Decode(&status); err != nil {
		return nil, fmt.Errorf("decode serverStatus: %w", err)
	}
	return status, nil
}
