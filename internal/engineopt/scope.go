// Package engineopt declares, parses and scopes engine settings: the
// key=value pairs of --engine-opt (and, for managed servers, --server-opt).
package engineopt

import (
	"fmt"
	"sort"
	"strings"
)

// Split is the one scoping rule: "scope.key" names key for one scope only,
// a key without a dot applies to every scope that knows it. A scope is an
// engine's name today; it is a name, not a lookup, so a variant's label can
// take its place.
func Split(k string) (scope, key string, scoped bool) {
	return strings.Cut(k, ".")
}

// Join is Split's inverse: the setting key for key in scope.
func Join(scope, key string) string { return scope + "." + key }

// Scoped holds settings as the user gave them: plain keys and scope.key
// ones, each with its value.
type Scoped map[string]string

// For returns the settings that apply to scope: its scoped keys, and the
// plain keys that knows reports as its own. A scoped key wins over the
// plain one.
func (s Scoped) For(scope string, knows func(key string) bool) map[string]string {
	out := map[string]string{}
	for k, v := range s {
		if _, _, scoped := Split(k); !scoped && knows(k) {
			out[k] = v
		}
	}
	for k, v := range s {
		if sc, key, scoped := Split(k); scoped && sc == scope {
			out[key] = v
		}
	}
	return out
}

// Given reports whether the user set key for scope, scoped or plain (the
// scoped one first, as For), with the setting as it was written
// ("scope.key=value" or "key=value").
func (s Scoped) Given(scope, key string) (written string, ok bool) {
	if v, ok := s[Join(scope, key)]; ok {
		return Join(scope, key) + "=" + v, true
	}
	if v, ok := s[key]; ok {
		return key + "=" + v, true
	}
	return "", false
}

// Check rejects a scoped key whose scope is not among scopes, and a plain
// key that no scope knows; keysOf lists a scope's keys. The first offending
// key in sorted order is named.
func (s Scoped) Check(scopes []string, keysOf func(scope string) []string) error {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if sc, _, scoped := Split(k); scoped {
			found := false
			for _, e := range scopes {
				found = found || e == sc
			}
			if !found {
				return fmt.Errorf("--engine-opt %s=...: %q is neither a label nor an engine in --engine: scope it to one of %s", k, sc, strings.Join(scopes, ", "))
			}
			continue
		}
		used := false
		var all []string
		for _, scope := range scopes {
			for _, key := range keysOf(scope) {
				all = append(all, Join(scope, key))
				used = used || key == k
			}
		}
		if !used {
			if len(all) == 0 {
				return fmt.Errorf("unknown --engine-opt %q: the selected engines take no settings", k)
			}
			return fmt.Errorf("unknown --engine-opt %q: the selected engines take %s", k, strings.Join(all, ", "))
		}
	}
	return nil
}

// ForVariant returns the settings as engine's scope sees them for the
// variant labelled label: its label.key settings become engine.key ones,
// winning over them, and the keys of the other labels are left out. Then
// For, Given and every reader of engine scopes apply unchanged, with one
// precedence: label over engine over plain. A bare variant (label ==
// engine) sees the settings as they are, minus other labels'.
func (s Scoped) ForVariant(label, engine string, labels []string) Scoped {
	other := map[string]bool{}
	for _, l := range labels {
		other[l] = l != label && l != engine
	}
	out := Scoped{}
	for k, v := range s {
		if sc, _, scoped := Split(k); scoped && (other[sc] || sc == label) {
			continue
		}
		out[k] = v
	}
	for k, v := range s {
		if sc, key, scoped := Split(k); scoped && sc == label {
			out[Join(engine, key)] = v
		}
	}
	return out
}
