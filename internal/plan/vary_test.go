package plan

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"rumbench/internal/results"
	"rumbench/internal/runner"
)

// isBad reports whether err is the user's input (exit 2).
func isBad(err error) bool {
	var b *runner.BadInputError
	return errors.As(err, &b)
}

// --vary expands the engines it applies to into the cartesian product of
// its values, labelled from them, with the values as label-scoped
// settings; an engine it does not apply to stays as it is.
func TestExpandVary(t *testing.T) {
	opts := map[string]string{"cache_size": "8MB"}
	got, err := ExpandVary(Engines("pebble", "sqlite"), Vary{Engine: []string{"pebble.compression=none,zstd", "sync=false,true"}}, &VarySettings{EngineOpts: opts})
	if err != nil {
		t.Fatal(err)
	}
	want := []Engine{
		{"pebble-compression-none-sync-false", "pebble"}, {"pebble-compression-none-sync-true", "pebble"},
		{"pebble-compression-zstd-sync-false", "pebble"}, {"pebble-compression-zstd-sync-true", "pebble"},
		{"sqlite", "sqlite"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ExpandVary: %v\nwant %v", got, want)
	}
	if opts["pebble-compression-zstd-sync-true.compression"] != "zstd" || opts["pebble-compression-zstd-sync-true.sync"] != "true" ||
		opts["pebble-compression-none-sync-false.sync"] != "false" || opts["cache_size"] != "8MB" {
		t.Errorf("settings of the variants: %v", opts)
	}
	for _, l := range labels(got) {
		if !labelSyntax.MatchString(l) {
			t.Errorf("label %q breaks the label rule", l)
		}
	}
	// A labelled entry is expanded under its label; a value's dots become _.
	got, err = ExpandVary([]Engine{{"p", "pebble"}}, Vary{Engine: []string{"p.cache_size=1.5MB,64MB"}}, &VarySettings{EngineOpts: map[string]string{}})
	if err != nil || !reflect.DeepEqual(labels(got), []string{"p-cache_size-1_5MB", "p-cache_size-64MB"}) {
		t.Errorf("labelled entry: %v, %v", got, err)
	}
	if got, err := ExpandVary(Engines("pebble"), Vary{}, &VarySettings{EngineOpts: map[string]string{}}); err != nil || !reflect.DeepEqual(got, Engines("pebble")) {
		t.Errorf("no --vary: %v, %v", got, err)
	}
}

func TestExpandVaryRefuses(t *testing.T) {
	for _, tc := range []struct {
		vary []string
		opts map[string]string
		want string
	}{
		{[]string{"pebble.compression"}, nil, "is not KEY=V1,V2"},
		{[]string{"pebble.compression=none,none"}, nil, "values must be distinct"},
		{[]string{"pebble.compression=none,", "x=1"}, nil, "values must be distinct and not empty"},
		{[]string{"sync=true,false", "sync=false,true"}, nil, "is given twice"},
		{[]string{"pebble.innodb_page_size=8k,16k"}, nil, "pebble takes no engine setting innodb_page_size"},
		{[]string{"rocks.compression=none,zstd"}, nil, "applies to no engine in --engine"},
		{[]string{"no_such_key=1,2"}, nil, "applies to no engine"},
		{[]string{"pebble.compression=none,zstd"}, map[string]string{"compression": "snappy"}, "both set compression for pebble: give it once"},
		{[]string{"pebble.compression=a.b,a_b"}, nil, "two variants are labelled pebble-compression-a_b"},
	} {
		opts := tc.opts
		if opts == nil {
			opts = map[string]string{}
		}
		_, err := ExpandVary(Engines("pebble"), Vary{Engine: tc.vary}, &VarySettings{EngineOpts: opts})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !isBad(err) {
			t.Errorf("--vary %v: %v, want %q (bad input)", tc.vary, err, tc.want)
		}
	}
}

// A sweep of --vary runs every variant under its label: the spec's rows
// are the labels, sweep.json maps them to their engine, and each cell's
// run sees its own variant's settings only.
func TestPlanSweepVariants(t *testing.T) {
	r := sweepRequest()
	r.Engines = []Engine{{"pebble", "pebble"}, {"lz", "pebble"}}
	r.EngineOpts = []string{"lz.sync=true"}
	r.Vary = []string{"pebble.compression=none,zstd"}
	p, spec := planSpec(t, r)
	// ENGINE.KEY applies to every variant of the engine, as --engine-opt's.
	if want := []string{"pebble-compression-none", "pebble-compression-zstd", "lz-compression-none", "lz-compression-zstd"}; !reflect.DeepEqual(spec.Engines, want) {
		t.Errorf("spec engines %v, want %v", spec.Engines, want)
	}
	if spec.EngineOf("lz-compression-none") != "pebble" || spec.EngineOf("pebble-compression-zstd") != "pebble" {
		t.Errorf("variants %v", spec.Variants)
	}
	o := p.CellOptions(spec.Cells()[0], "pebble-compression-zstd", "s")
	if len(o.Variants) != 1 || o.Variants[0].Engine != "pebble" || o.Variants[0].Label != "pebble-compression-zstd" ||
		o.EngineOpts["compression"] != "zstd" || o.Config.(*results.RunConfig).Engines[0] != "pebble-compression-zstd=pebble" {
		t.Errorf("cell options: variants %v opts %v config %v", o.Variants, o.EngineOpts, o.Config)
	}
	if o := p.CellOptions(spec.Cells()[0], "lz-compression-none", "s"); o.EngineOpts["compression"] != "none" || o.EngineOpts["sync"] != "true" {
		t.Errorf("lz's options %v", o.EngineOpts)
	}
	// Two variants with the same settings compare nothing.
	r.Engines = []Engine{{"a", "pebble"}, {"b", "pebble"}}
	r.EngineOpts = []string{"a.sync=true"}
	r.Vary = []string{"b.sync=true,false"}
	if _, err := PlanSweep(r); err == nil || !strings.Contains(err.Error(), "a and b-sync-true have the same settings") {
		t.Errorf("identical variants: %v", err)
	}
}
