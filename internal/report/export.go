package report

import (
	"strings"
)

// WriteMarkdownTable appends t as a markdown table under a heading of level
// ("##"): for a workload's own report views (e.g. the hot-row matrices),
// so they render like every other table without the report package
// knowing the workload.
func WriteMarkdownTable(b *strings.Builder, t Table, level string) { writeMDTable(b, t, level) }
