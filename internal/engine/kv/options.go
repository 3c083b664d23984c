package kv

import (
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"strings"

	"rumbench/internal/model"
)

// Option parsing shared by the kv engines. Errors are one line naming the
// option and what it accepts.

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	// Binary multiples, as in database configuration files: 1MB = 1MiB.
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"tb", 1 << 40},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40},
	{"b", 1},
}

// ParseSize parses a byte size: plain bytes ("1048576") or a number with a
// binary unit ("64MB", "64MiB", "1.5g"; KB/MB/GB/TB are 1024-based).
func ParseSize(key, val string) (int64, error) {
	bad := fmt.Errorf("engine option %s=%q: want a byte size such as 1048576, 64MB or 1GiB", key, val)
	s := strings.ToLower(strings.TrimSpace(val))
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 || n > math.MaxInt64/mult {
			return 0, bad
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsNaN(f) || f*float64(mult) >= math.MaxInt64 {
		return 0, bad
	}
	return int64(f * float64(mult)), nil
}

// ParseBool parses true/false (also 1/0, yes/no, on/off).
func ParseBool(key, val string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(val)) {
	case "true", "1", "yes", "on":
		return true, nil
	case "false", "0", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("engine option %s=%q: want true or false", key, val)
}

// ParseInt parses an integer in [min, max].
func ParseInt(key, val string, min, max int64) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
	if err != nil || n < min || n > max {
		return 0, fmt.Errorf("engine option %s=%q: want an integer from %d to %d", key, val, min, max)
	}
	return n, nil
}

// ParseFloat parses a number in [min, max].
func ParseFloat(key, val string, min, max float64) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
	if err != nil || math.IsNaN(f) || f < min || f > max {
		return 0, fmt.Errorf("engine option %s=%q: want a number from %g to %g", key, val, min, max)
	}
	return f, nil
}

// ParseChoice checks that val is one of choices (case-insensitive) and
// returns it in lower case.
func ParseChoice(key, val string, choices ...string) (string, error) {
	v := strings.ToLower(strings.TrimSpace(val))
	for _, c := range choices {
		if v == c {
			return v, nil
		}
	}
	return "", fmt.Errorf("engine option %s=%q: want one of %s", key, val, strings.Join(choices, ", "))
}

// ModuleVersion returns the version of the named module from the binary's
// build information, or fallback.
func ModuleVersion(path, fallback string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return fallback
	}
	for _, m := range bi.Deps {
		if m.Path != path {
			continue
		}
		if m.Replace != nil && m.Replace.Version != "" {
			return m.Replace.Version
		}
		if m.Version != "" {
			return m.Version
		}
	}
	return fallback
}

// OptionGetter returns a lookup of option values: the user's value when
// given, else the option's declared default, else "".
func OptionGetter(opts map[string]string, defs []model.Option) func(string) string {
	return func(key string) string {
		if v, ok := opts[key]; ok {
			return v
		}
		for _, o := range defs {
			if o.Key == key {
				return o.Default
			}
		}
		return ""
	}
}

// Config is the kv layer's own settings, the same engine options on every kv
// engine (Options).
type Config struct {
	// UniqueCheck makes Insert read each primary key before writing it and
	// fail with model.ErrDuplicateKey when it exists (or is twice in the
	// batch), as a database enforces its primary key. Off, inserts write
	// blindly and a duplicate overwrites the row (leaving its old index
	// entries behind).
	UniqueCheck bool
	// IndexBuild is how CreateIndexes fills new indexes: "bulk" sorts
	// their entries and loads them through the store's bulk path
	// (BulkLoader), with writes blocked meanwhile; "online" copies rows in
	// chunks while writers run (also the fallback of stores without one).
	IndexBuild string
	// IndexBuildMemory bounds the bulk build's sort buffer: entries beyond
	// it are sorted in runs spilled to files under the data dir and merged.
	IndexBuildMemory int64
}

// Options are the engine options every kv engine lists after its own.
func Options() []model.Option {
	return []model.Option{
		{Key: "unique_check", Default: "true", Help: "read the primary key before each insert and fail on a duplicate, as SQL engines do (for an LSM the one read an insert cannot avoid); false writes blindly, like MyRocks with unique_checks=0"},
		{Key: "index_build", Default: "bulk", Help: "how l.x (CreateIndexes) fills new indexes: bulk sorts the entries (in runs spilled under the data dir when they exceed index_build_memory) and loads them through the engine's bulk path (Pebble and RocksDB ingest SSTs, WiredTiger a bulk cursor, bbolt sequential full pages), blocking writes meanwhile like CREATE INDEX; online copies rows in chunks of 4096 entries while writers run (CREATE INDEX CONCURRENTLY)"},
		{Key: "index_build_memory", Default: "64MB", Help: "memory for the bulk index build's sort (keys plus 16 bytes each); more entries are sorted in runs spilled to files and merged (at least 64KB)"},
	}
}

// ParseConfig reads the kv layer's options through get (OptionGetter over
// the engine's options, which include Options()).
func ParseConfig(get func(string) string) (Config, error) {
	var c Config
	var err error
	if c.UniqueCheck, err = ParseBool("unique_check", get("unique_check")); err != nil {
		return c, err
	}
	if c.IndexBuild, err = parseIndexBuild(get); err != nil {
		return c, err
	}
	if c.IndexBuildMemory, err = parseIndexBuildMemory(get); err != nil {
		return c, err
	}
	return c, nil
}

// parseIndexBuild and parseIndexBuildMemory take the default when an
// engine's option list predates the options (get returns "").
func parseIndexBuild(get func(string) string) (string, error) {
	v := get("index_build")
	if v == "" {
		return "bulk", nil
	}
	return ParseChoice("index_build", v, "bulk", "online")
}

func parseIndexBuildMemory(get func(string) string) (int64, error) {
	v := get("index_build_memory")
	if v == "" {
		return defaultBuildMemory, nil
	}
	n, err := ParseSize("index_build_memory", v)
	if err != nil {
		return 0, err
	}
	if n < minBuildMemory || n > maxBuildMemory {
		return 0, fmt.Errorf("engine option index_build_memory=%q: want a size from 64KB to 3GB", v)
	}
	return n, nil
}

// Record adds the settings to an engine's Info.Settings (run.json).
func (c Config) Record(settings map[string]string) {
	settings["unique_check"] = strconv.FormatBool(c.UniqueCheck)
	settings["index_build"] = c.IndexBuild
	settings["index_build_memory"] = strconv.FormatInt(c.IndexBuildMemory, 10)
}
