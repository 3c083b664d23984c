package results

import (
	"encoding/json"
	"testing"
)

// A detail reads the same as a step wrote it and as JSON gives it back.
func TestNumber(t *testing.T) {
	d := map[string]any{"a": int64(7), "b": 7, "c": 2.5, "s": "7", "n": nil}
	raw, _ := json.Marshal(d)
	var back map[string]any
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	for _, m := range []map[string]any{d, back} {
		for k, want := range map[string]float64{"a": 7, "b": 7, "c": 2.5} {
			if v, ok := Number(m[k]); !ok || v != want {
				t.Errorf("Number(%v) = %v, %v; want %v", m[k], v, ok, want)
			}
		}
		for _, k := range []string{"s", "n", "absent"} {
			if _, ok := Number(m[k]); ok {
				t.Errorf("Number(%#v) is a number", m[k])
			}
		}
		if v, ok := DetailInt(m, "a"); !ok || v != 7 {
			t.Errorf("DetailInt(a) = %v, %v", v, ok)
		}
	}
}
