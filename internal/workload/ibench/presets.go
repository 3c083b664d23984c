package ibench

import (
	"fmt"
	"sort"
	"strings"
)

// Preset is a named set of sizes. Flags given explicitly override it.
type Preset struct {
	Name         string
	Description  string
	Clients      int
	Rows         int64
	ChurnRows    int64
	Indexes      int
	QuerySeconds float64
}

// Presets are the named run shapes.
var Presets = map[string]Preset{
	"quick": {
		Name: "quick", Description: "seconds per step: a first look and CI",
		Clients: 2, Rows: 100_000, ChurnRows: 50_000, Indexes: 3, QuerySeconds: 10,
	},
	"small": {
		Name: "small", Description: "minutes: a data set that still fits in memory",
		Clients: 2, Rows: 2_000_000, ChurnRows: 1_000_000, Indexes: 3, QuerySeconds: 120,
	},
	"reference": {
		Name: "reference", Description: "hours: the published shape (8 clients, tens of millions of rows each, 1800 s query steps)",
		Clients: 8, Rows: 20_000_000, ChurnRows: 40_000_000, Indexes: 3, QuerySeconds: 1800,
	},
}

// LookupPreset returns the named preset or a one-line error listing them.
func LookupPreset(name string) (Preset, error) {
	p, ok := Presets[name]
	if !ok {
		var names []string
		for n := range Presets {
			names = append(names, n)
		}
		sort.Strings(names)
		return Preset{}, fmt.Errorf("unknown --preset %q: choose one of %s", name, strings.Join(names, ", "))
	}
	return p, nil
}
