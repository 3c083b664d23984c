package sweep

import (
	"encoding/json"
	"strings"
	"testing"

	"rumbench/internal/workload"
)

// A workload's grid: cells named by its axes' prefixes, the last axis
// slowest, skipped cells left out, each cell's values read back by name;
// sweep.json names the workload and its axes and reads back the same.
func TestWorkloadGrid(t *testing.T) {
	s := &Spec{Engines: []string{"pebble"}, Workload: "hotrow", Skip: []string{"t2-c1"},
		Axes: []Axis{{Name: "tables", Prefix: "t", Values: []int{1, 2}}, {Name: "clients", Prefix: "c", Values: []int{1, 4}}}}
	var names []string
	for _, c := range s.Cells() {
		names = append(names, c.Name())
	}
	if got := strings.Join(names, " "); got != "t1-c1 t1-c4 t2-c4" {
		t.Errorf("cells %s", got)
	}
	if at := s.At(s.Cells()[2]); at["tables"] != 2 || at["clients"] != 4 {
		t.Errorf("t2-c4 at %v", at)
	}
	if c := s.CellAt(workload.Point{"tables": 1, "clients": 4}); c != s.Cells()[1] {
		t.Errorf("CellAt %v, want %v", c, s.Cells()[1])
	}
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
	raw, _ := json.Marshal(s)
	var back Spec
	if err := json.Unmarshal(raw, &back); err != nil || back.Workload != "hotrow" || len(back.Cells()) != 3 {
		t.Errorf("sweep.json %s read back as %+v (%v)", raw, back, err)
	}
	all := &Spec{Engines: []string{"pebble"}, Workload: "hotrow", Skip: []string{"t1-c1"}, Axes: []Axis{{Name: "tables", Prefix: "t", Values: []int{1}}, {Name: "clients", Prefix: "c", Values: []int{1}}}}
	if err := all.Validate(); err == nil || !strings.Contains(err.Error(), "no cell to run") {
		t.Errorf("every cell skipped: %v", err)
	}
}

// The insert benchmark's sweep.json is laid out flat, as it always was
// (its axes and two settings at the top, no workload key): it reads back
// as the insert benchmark's grid and writes back byte for byte.
func TestFlatSweepFile(t *testing.T) {
	const file = `{"engines":["a","b"],"indexes":[0,3],"pad_sizes":[20,1024],"pad_random_pct":50,"clients":[1],"steps":["l.i0x"],"shared":{"rows":1000,"seed":1},"repeat":2}`
	var s Spec
	if err := json.Unmarshal([]byte(file), &s); err != nil {
		t.Fatal(err)
	}
	if s.Workload != "ibench" || len(s.Axes) != 3 || s.Axes[1].Name != "pad-sizes" || s.Axes[1].Prefix != "pad" || s.Shared["pad_random_pct"] != 50.0 {
		t.Errorf("read back as %+v", s)
	}
	if got := s.Cells()[3].Name(); got != "x3-pad1024-c1" || len(s.Cells()) != 4 {
		t.Errorf("cells %v", s.Cells())
	}
	raw, err := json.Marshal(s)
	if err != nil || string(raw) != file {
		t.Errorf("written back as\n%s\nwant\n%s (%v)", raw, file, err)
	}
	if s.Banner() != "steps [l.i0x]" {
		t.Errorf("banner %q", s.Banner())
	}
}
