package report

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"rumbench/internal/results"
)

// TestSearchOf: a step's details.search reads the same from memory and
// from a stored bundle's JSON; anything else is no search.
func TestSearchOf(t *testing.T) {
	res := results.Search{Sustained: 7500, Lower: 7500, Upper: 7812.5, Probes: []results.SearchProbe{{Target: 5000, Achieved: 5000, Pass: true}, {Target: 10000, Achieved: 8675}}}
	b, _ := json.Marshal(map[string]any{"search": res})
	var stored map[string]any
	if err := json.Unmarshal(b, &stored); err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{res, stored["search"]} {
		got, ok := searchOf(v)
		if !ok || got.Sustained != 7500 || len(got.Probes) != 2 || got.Probes[1].Achieved != 8675 || !got.Probes[0].Pass {
			t.Errorf("searchOf(%T) = %+v, %v", v, got, ok)
		}
	}
	if _, ok := searchOf(nil); ok {
		t.Error("nil read as a search")
	}
}

// TestSearchStepTable: a step that searched heads its rate column
// "sustained", has no rate percentile column, and says what the figure
// is; the same step without a search keeps IPS.av and IPS.99.
func TestSearchStepTable(t *testing.T) {
	bs, err := Load([]string{"testdata/run1"})
	if err != nil {
		t.Fatal(err)
	}
	table := func() ([]string, []string) {
		rep, err := Build(bs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, sr := range rep.Steps {
			if sr.Name == "l.i1" {
				abs := rep.StepTables(sr)[0]
				return abs.Headers, abs.Notes
			}
		}
		t.Fatal("no l.i1 step")
		return nil, nil
	}
	head, notes := table()
	if !slices.Contains(head, "IPS.av(rows/s)") || !slices.Contains(head, "IPS.99(rows/s)") || slices.Contains(notes, SearchNote) {
		t.Fatalf("plain l.i1: headers %q notes %q", head, notes)
	}
	for _, b := range bs {
		if s := b.Steps["l.i1"]; s != nil {
			if s.Details == nil {
				s.Details = map[string]any{}
			}
			s.Details["search"] = results.Search{Sustained: 7500, Probes: []results.SearchProbe{{Target: 7500, Achieved: 7400, Pass: true}}}
		}
	}
	head, notes = table()
	if !slices.Contains(head, "sustained(rows/s)") || slices.ContainsFunc(head, func(h string) bool { return strings.HasPrefix(h, "IPS.") }) || !slices.Contains(notes, SearchNote) {
		t.Errorf("searched l.i1: headers %q notes %q, want sustained(rows/s), no IPS column, and the search note", head, notes)
	}
}
