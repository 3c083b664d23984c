package report

import (
	"encoding/json"
	"rumbench/internal/results"
	"testing"
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
