package managed

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"rumbench/internal/engineopt"
)

// Engines are the engines that can run on a managed server.
var Engines = []string{"postgres", "innodb", "myrocks"}

// IsManageable reports whether engine can run on a managed server.
func IsManageable(engine string) bool {
	for _, e := range Engines {
		if e == engine {
			return true
		}
	}
	return false
}

var keyRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Route checks --server-opt values ("key=value", or "engine.key=value" for
// one engine) and assigns them to the managed engines. A plain key goes to
// every managed engine whose server has the setting: PostgreSQL's
// (postgres --describe-config) to postgres, MariaDB's (mariadbd --verbose
// --help) to innodb and myrocks, except MyRocks' own rocksdb_* variables,
// which only the myrocks server loads. A key no managed server has, an
// engine that is not managed, and the settings rumbench sets itself (port,
// data directory, socket, ...) are refused. MariaDB keys may use dashes;
// they are recorded with underscores. Later values of a key win. Keys are
// those of the system's installations (RouteInstalls for others).
func Route(managed []string, kvs []string) (map[string][]Setting, error) {
	return RouteInstalls(managed, nil, kvs)
}

// RouteInstalls is Route with each engine's server from the installation
// installs[engine] (Spec.Install; missing or "": the system's): a key is
// checked against the settings that installation's server has, so a setting
// only a newer version knows goes to that version's server.
func RouteInstalls(managed []string, installs map[string]string, kvs []string) (map[string][]Setting, error) {
	isManaged := map[string]bool{}
	for _, e := range managed {
		isManaged[e] = true
	}
	out := map[string][]Setting{}
	set := func(engine, key, value string) {
		for i, s := range out[engine] {
			if s.Key == key {
				out[engine][i].Value = value
				return
			}
		}
		out[engine] = append(out[engine], Setting{Key: key, Value: value})
	}
	// given finds a setting given twice for one scope: the last would
	// silently win. A scope is "" (every managed server) or an engine.
	given := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--server-opt %q is not key=value (e.g. --server-opt shared_buffers=1GB or --server-opt innodb.innodb_buffer_pool_size=1G)", kv)
		}
		id := strings.ReplaceAll(strings.ToLower(k), "-", "_") // as the servers read them
		if prev, dup := given[id]; dup {
			return nil, fmt.Errorf("--server-opt %s is given twice (%s and %s): give it once", k, prev, kv)
		}
		given[id] = kv
		if strings.ContainsAny(v, "\n\x00") {
			return nil, fmt.Errorf("--server-opt %s: the value holds a newline or NUL byte", k)
		}
		var scope string
		if eng, key, scoped := engineopt.Split(k); scoped {
			if !IsManageable(eng) {
				return nil, fmt.Errorf("--server-opt %s: %q is not a server engine (scope a setting with postgres., innodb. or myrocks.)", k, eng)
			}
			if !isManaged[eng] {
				return nil, fmt.Errorf("--server-opt %s: engine %s does not run on a managed server: add it to --managed", k, eng)
			}
			scope, k = eng, key
		}
		k = strings.ToLower(k)
		var targets []string
		for _, eng := range managed {
			if scope != "" && eng != scope {
				continue
			}
			fl, err := flavorFor(eng, installs[eng])
			if err != nil {
				return nil, err
			}
			key, owned, err := fl.ownKey(k)
			if err != nil {
				return nil, err
			}
			if owned {
				targets = append(targets, eng)
				k = key
			} else if scope != "" {
				return nil, fmt.Errorf("--server-opt %s.%s: the %s server has no setting %q (%s)", scope, k, scope, k, fl.listHint())
			}
		}
		if len(targets) == 0 {
			var hints []string
			for _, eng := range managed {
				fl, err := flavorFor(eng, installs[eng])
				if err != nil {
					return nil, err
				}
				hints = append(hints, fl.listHint())
			}
			sort.Strings(hints)
			return nil, fmt.Errorf("unknown --server-opt %q: no managed server (%s) has that setting (%s)", k, strings.Join(managed, ","), strings.Join(dedup(hints), "; "))
		}
		for _, eng := range targets {
			fl, err := flavorFor(eng, installs[eng])
			if err != nil {
				return nil, err
			}
			if fl.reserved(k) {
				return nil, fmt.Errorf("--server-opt %s: rumbench sets it for the managed %s server (port, address, directories, log)", k, eng)
			}
			set(eng, k, v)
		}
	}
	return out, nil
}

// ServerKey reports whether engine's server from install ("" for the
// system's) takes setting key as --server-opt would route it, returning
// the key as it is recorded (lower case; MariaDB's with underscores). A
// setting rumbench sets itself (port, directories, log) is an error.
func ServerKey(engine, install, key string) (string, bool, error) {
	fl, err := flavorFor(engine, install)
	if err != nil {
		return key, false, nil
	}
	k, owned, err := fl.ownKey(strings.ToLower(key))
	if err != nil || !owned {
		return k, false, err
	}
	if fl.reserved(k) {
		return k, false, fmt.Errorf("rumbench sets %s for the managed %s server (port, address, directories, log)", k, engine)
	}
	return k, true, nil
}

func dedup(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
