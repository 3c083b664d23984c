package ibench

import (
	"reflect"
	"strings"
	"testing"

	"rumbench/internal/workload"
)

// The sweep's axes read their flags as the insert benchmark's sweep always
// has: pad sizes in bytes, KB or MB (1024-based), index counts 0..3 with
// the preset's default, clients from 1.
func TestSweepAxes(t *testing.T) {
	axes := map[string]workload.Axis{}
	for _, a := range (sweeper{}).SweepAxes() {
		axes[a.Name] = a
	}
	pads, err := axes[AxisPadSizes].Values([]string{"256", "10KB", "1MB", "20B"}, true, "quick")
	if err != nil || !reflect.DeepEqual(pads, []int{256, 10240, 1 << 20, 20}) {
		t.Errorf("pad sizes %v %v", pads, err)
	}
	if _, err := axes[AxisPadSizes].Values([]string{"ten"}, true, "quick"); err == nil || !strings.Contains(err.Error(), `--pad-sizes "ten"`) {
		t.Errorf("bad pad size: %v", err)
	}
	if v, _ := axes[AxisIndexes].Values(nil, false, "quick"); !reflect.DeepEqual(v, []int{0, 1, 2, 3}) {
		t.Errorf("quick indexes %v", v)
	}
	if v, _ := axes[AxisIndexes].Values(nil, false, "iobound"); !reflect.DeepEqual(v, []int{0, 3}) {
		t.Errorf("iobound indexes %v", v)
	}
	if err := axes[AxisIndexes].CheckAxis([]int{0, 4}); err == nil || err.Error() != "--indexes values must be between 0 and 3, got 4" {
		t.Errorf("4 indexes: %v", err)
	}
	if err := axes[AxisClients].CheckAxis([]int{0}); err == nil || err.Error() != "--clients values must be at least 1, got 0" {
		t.Errorf("0 clients: %v", err)
	}
}
