package report

import (
	"strings"

	"rumbench/internal/table"
)

// WriteMarkdownTable appends t as a markdown table under a heading of level
// ("##"); table.WriteMarkdown, kept for callers of the report package.
func WriteMarkdownTable(b *strings.Builder, t Table, level string) { table.WriteMarkdown(b, t, level) }
