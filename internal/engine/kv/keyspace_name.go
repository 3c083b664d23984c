package kv

import (
	"fmt"
	"strconv"
	"strings"
)

// KeyspaceName names the engine object (a WiredTiger table, a RocksDB
// column family) of keyspace ks (table id << 8 | index id) for stores that
// keep a keyspace per table and index: prefix, the ids, then name (table.index)
// for people reading the data dir.
func KeyspaceName(prefix string, ks uint64, name string) string {
	return fmt.Sprintf("%s%d-%d-%s", prefix, ks>>8, ks&0xFF, name)
}

// ParseKeyspaceName reads the keyspace back from a KeyspaceName.
func ParseKeyspaceName(prefix, s string) (uint64, bool) {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return 0, false
	}
	f := strings.SplitN(rest, "-", 3)
	if len(f) != 3 {
		return 0, false
	}
	tid, err1 := strconv.ParseUint(f[0], 10, 32)
	ix, err2 := strconv.ParseUint(f[1], 10, 8)
	if err1 != nil || err2 != nil || tid == 0 {
		return 0, false
	}
	return tid<<8 | ix, true
}
