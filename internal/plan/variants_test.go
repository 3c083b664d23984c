package plan

import (
	"reflect"
	"strings"
	"testing"
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
	if e := entries(got); !reflect.DeepEqual(e, []string{"pebble", "zstd=pebble", "ib8=innodb"}) {
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
