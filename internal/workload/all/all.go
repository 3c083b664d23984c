// Package all links every workload into the registry: adding a workload is
// one import line here.
package all

import (
	_ "rumbench/internal/workload/hotrow"
	_ "rumbench/internal/workload/ibench"
	_ "rumbench/internal/workload/linkbench"
)
