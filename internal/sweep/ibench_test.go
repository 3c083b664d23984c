package sweep

import (
	"fmt"

	"rumbench/internal/workload/ibench"
)

// ibenchSpec is the spec of an insert benchmark sweep (its Sweeper is
// registered by importing ibench) over indexes × pad sizes × clients,
// running l.i0x.
func ibenchSpec(engines []string, indexes, pads, clients []int) *Spec {
	return &Spec{Engines: engines, Workload: "ibench",
		Axes: []Axis{{Name: ibench.AxisIndexes, Prefix: "x", Values: indexes}, {Name: ibench.AxisPadSizes, Prefix: "pad", Values: pads},
			{Name: ibench.AxisClients, Prefix: "c", Values: clients}},
		Shared: map[string]any{"steps": []string{"l.i0x"}, "pad_random_pct": 50}}
}

// ibenchCell is the insert benchmark's cell of k indexes, pad size p and
// c clients.
func ibenchCell(k, p, c int) Cell { return Cell{name: fmt.Sprintf("x%d-pad%d-c%d", k, p, c)} }

// cellIndexes is the index count of an insert benchmark's cell.
func cellIndexes(c Cell) int {
	var k int
	fmt.Sscanf(c.Name(), "x%d", &k)
	return k
}
