// Package cliconfig fills command flags from a JSON file of flag values.
package cliconfig

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// Apply sets every flag named in the JSON object at path that was not given
// on the command line. Keys are flag names; values are strings, numbers,
// booleans or lists (for list flags).
func Apply(fs *pflag.FlagSet, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read --config: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("--config %s is not a JSON object of flag values: %w", path, err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == VariantsKey {
			if err := applyVariants(fs, path, m); err != nil {
				return err
			}
			continue
		}
		f := fs.Lookup(k)
		if f == nil || k == "config" {
			return fmt.Errorf("--config %s: unknown setting %q (keys are flag names, e.g. \"engine\", \"rows\")", path, k)
		}
		if f.Changed {
			continue
		}
		var vals []string
		switch v := m[k].(type) {
		case []any:
			for _, e := range v {
				vals = append(vals, scalar(e))
			}
			if f.Value.Type() != "stringArray" {
				vals = []string{strings.Join(vals, ",")}
			}
		default:
			vals = []string{scalar(v)}
		}
		for _, v := range vals {
			if err := fs.Set(k, v); err != nil {
				return fmt.Errorf("--config %s: bad value for %q: %w", path, k, err)
			}
		}
	}
	return nil
}

func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		if x == float64(int64(x)) {
			return fmt.Sprintf("%d", int64(x))
		}
		return fmt.Sprintf("%g", x)
	}
	return fmt.Sprint(v)
}

// VariantsKey is the --config key of a list of variants: each a label, an
// engine and its settings, as --engine LABEL=ENGINE, --engine-opt
// LABEL.key=value, --server-opt LABEL.key=value and --install LABEL=DIR
// would give them.
const VariantsKey = "variants"

// Variant is one entry of "variants".
type Variant struct {
	Label     string            `json:"label"`
	Engine    string            `json:"engine"`
	EngineOpt map[string]string `json:"engine_opt"`
	ServerOpt map[string]string `json:"server_opt"`
	// Install is the installation its managed server runs (--install).
	Install string `json:"install"`
}

// applyVariants turns "variants" into the flags' values: the engine list
// (which it replaces, so "engine" beside it, or --engine on the command
// line, is refused) and each variant's settings scoped to its label.
func applyVariants(fs *pflag.FlagSet, path string, m map[string]any) error {
	if _, both := m["engine"]; both {
		return fmt.Errorf("--config %s: give \"variants\" or \"engine\", not both", path)
	}
	if f := fs.Lookup("engine"); f == nil || f.Changed {
		if f == nil {
			return fmt.Errorf("--config %s: this command takes no \"variants\"", path)
		}
		return fmt.Errorf("--config %s: \"variants\" lists the engines: drop --engine from the command line (or \"variants\" from the file)", path)
	}
	raw, _ := json.Marshal(m[VariantsKey])
	var vs []Variant
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&vs); err != nil || len(vs) == 0 {
		return fmt.Errorf("--config %s: \"variants\" must be a list of {\"label\": ..., \"engine\": ..., \"engine_opt\": {...}, \"server_opt\": {...}}", path)
	}
	var entries []string
	for _, v := range vs {
		if v.Engine == "" {
			return fmt.Errorf("--config %s: variant %q has no \"engine\"", path, v.Label)
		}
		scope, entry := v.Engine, v.Engine
		if v.Label != "" && v.Label != v.Engine {
			scope, entry = v.Label, v.Label+"="+v.Engine
		}
		entries = append(entries, entry)
		if v.Install != "" {
			if fs.Lookup("install") == nil {
				return fmt.Errorf("--config %s: this command takes no install (variant %s)", path, scope)
			}
			if err := fs.Set("install", scope+"="+v.Install); err != nil {
				return fmt.Errorf("--config %s: variant %s: %w", path, scope, err)
			}
		}
		for flag, opts := range map[string]map[string]string{"engine-opt": v.EngineOpt, "server-opt": v.ServerOpt} {
			keys := make([]string, 0, len(opts))
			for k := range opts {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if fs.Lookup(flag) == nil {
					return fmt.Errorf("--config %s: this command takes no %s (variant %s)", path, flag, scope)
				}
				if err := fs.Set(flag, scope+"."+k+"="+opts[k]); err != nil {
					return fmt.Errorf("--config %s: variant %s: %w", path, scope, err)
				}
			}
		}
	}
	return fs.Set("engine", strings.Join(entries, ","))
}
