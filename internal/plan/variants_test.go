package plan

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"rumbench/internal/launch"
	"rumbench/internal/model"
	"rumbench/internal/runner"
)

func TestParseEngines(t *testing.T) {
	got, err := ParseEngines([]string{"pebble", "zstd=pebble", "ib8=innodb"})
	want := []Engine{{"pebble", "pebble"}, {"zstd", "pebble"}, {"ib8", "innodb"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseEngines: %v, %v; want %v", got, err, want)
	}
	if !Labelled(got) || Labelled(Engines("pebble", "sqlite")) {
		t.Errorf("Labelled: a labelled list is, a bare one is not")
	}
	if e := entries(resolveVariants(got, nil, nil, labels(got))); !reflect.DeepEqual(e, []string{"pebble", "zstd=pebble", "ib8=innodb"}) {
		t.Errorf("entries %v", e)
	}
	if u := uniqueNames(got); !reflect.DeepEqual(u, []string{"pebble", "innodb"}) {
		t.Errorf("uniqueNames %v", u)
	}
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"pebble", "pebble"}, "give each a label: --engine a=pebble,b=pebble"},
		{[]string{"a=pebble", "a=sqlite"}, "label a is used twice"},
		{[]string{"pebble", "pebble=pebble"}, "label pebble is used twice"},
		{[]string{"sqlite=pebble"}, "the name of another engine"},
		{[]string{"a.b=pebble"}, "must be letters"},
		{[]string{"=pebble"}, "must be letters"},
	} {
		if _, err := ParseEngines(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseEngines(%v): %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestCheckDistinct(t *testing.T) {
	ab := []Engine{{"a", "pebble"}, {"b", "pebble"}}
	for _, tc := range []struct {
		name     string
		opts     map[string]string
		server   []string
		installs []string
		same     bool
	}{
		{"no settings", nil, nil, nil, true},
		{"plain for both", map[string]string{"sync": "true"}, nil, nil, true},
		{"engine scope for both", map[string]string{"pebble.sync": "true"}, nil, nil, true},
		{"label and engine scope agree", map[string]string{"pebble.sync": "true", "b.sync": "true"}, nil, nil, true},
		{"a label's own", map[string]string{"b.sync": "true"}, nil, nil, false},
		{"label over engine", map[string]string{"pebble.sync": "true", "b.sync": "false"}, nil, nil, false},
		{"a server setting", nil, []string{"b.x=1"}, nil, false},
		{"an installation", nil, nil, []string{"b=/opt/x"}, false},
	} {
		err := checkDistinct(ab, tc.opts, tc.server, tc.installs)
		if same := err != nil && strings.Contains(err.Error(), "a and b have the same settings"); same != tc.same {
			t.Errorf("%s: %v, want same=%v", tc.name, err, tc.same)
		}
	}
	// Different engines never are the same variant.
	if err := checkDistinct([]Engine{{"a", "pebble"}, {"b", "sqlite"}}, nil, nil, nil); err != nil {
		t.Errorf("pebble and sqlite: %v", err)
	}
}

// The plan's variants carry every scope applied (label over engine over
// plain, other labels' left out), engine settings keyed as the engine
// takes them and server settings as --server-opt gave them: what the
// runner, sweep, crashtest and the managed servers take as they are.
func TestResolveVariants(t *testing.T) {
	es := []Engine{{"a", "pebble"}, {"b", "pebble"}, {"sqlite", "sqlite"}}
	opts := map[string]string{"cache_size": "8MB", "a.cache_size": "16MB", "pebble.sync": "true", "b.sync": "false", "sqlite.synchronous": "full"}
	server := []string{"work_mem=1MB", "a.work_mem=2MB", "b.x=1"}
	got := resolveVariants(es, opts, server, labels(es))
	want := []model.Variant{
		{Label: "a", Engine: "pebble", Options: map[string]string{"cache_size": "16MB", "sync": "true"}, Server: []string{"work_mem=1MB", "pebble.work_mem=2MB"}},
		{Label: "b", Engine: "pebble", Options: map[string]string{"cache_size": "8MB", "sync": "false"}, Server: []string{"work_mem=1MB", "pebble.x=1"}},
		{Label: "sqlite", Engine: "sqlite", Options: map[string]string{"cache_size": "8MB", "synchronous": "full"}, Server: []string{"work_mem=1MB"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("variants\n%+v\nwant\n%+v", got, want)
	}
	// A run's plan hands the runner these variants.
	r := request(t, "ibench")
	r.Engines, r.EngineOpts, r.ServerOpts = es, []string{"cache_size=8MB", "a.cache_size=16MB", "pebble.sync=true", "b.sync=false", "sqlite.synchronous=full"}, server
	p, err := PlanRun(r)
	if err != nil {
		t.Fatal(err)
	}
	o := p.Options("out", &launch.Memory{}, nil)
	for i, v := range o.Variants {
		if v.Label != want[i].Label || v.Options["sync"] != want[i].Options["sync"] || !reflect.DeepEqual(v.Server, want[i].Server) {
			t.Errorf("runner's variant %d: %+v, want %+v", i, v, want[i])
		}
	}
	if o.Variants[0].Options["cache_size"] != "16MB" || o.Variants[1].Options["cache_size"] == "16MB" {
		t.Errorf("runner's variants %+v: a's cache_size is its label's, b's not", o.Variants)
	}
}

// "Listed twice" and "the same settings" are refused where the variants
// are made, as the user's input, with the messages the command prints.
func TestDuplicateVariantsRefusedInPlan(t *testing.T) {
	_, err := ParseEngines([]string{"pebble", "pebble"})
	var bi *runner.BadInputError
	if !errors.As(err, &bi) || err.Error() != "--engine: pebble is listed twice: give each a label: --engine a=pebble,b=pebble" {
		t.Errorf("listed twice: %v", err)
	}
	err = checkDistinct([]Engine{{"a", "pebble"}, {"b", "pebble"}}, map[string]string{"a.sync": "true", "b.sync": "true"}, nil, nil)
	if !errors.As(err, &bi) || err.Error() != "a and b have the same settings: give one of them a setting of its own (--engine-opt b.KEY=VALUE)" {
		t.Errorf("the same settings: %v", err)
	}
}
