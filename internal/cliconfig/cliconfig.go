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
