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
	if err := json.Unmarshal(raw, &back); err != nil || back.Workload != "hotrow" || len(back.Cells()) != 3 || back.WorkloadName() != "hotrow" {
		t.Errorf("sweep.json %s read back as %+v (%v)", raw, back, err)
	}
	if (&Spec{}).WorkloadName() != "ibench" {
		t.Error("a spec without a workload is the insert benchmark's")
	}
	all := &Spec{Engines: []string{"pebble"}, Workload: "hotrow", Skip: []string{"t1-c1"}, Axes: []Axis{{Name: "tables", Prefix: "t", Values: []int{1}}, {Name: "clients", Prefix: "c", Values: []int{1}}}}
	if err := all.Validate(); err == nil || !strings.Contains(err.Error(), "no cell to run") {
		t.Errorf("every cell skipped: %v", err)
	}
}
