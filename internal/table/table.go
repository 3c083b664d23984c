// Package table is rumbench's text-table toolkit: a table of final cell
// texts and its markdown rendering, padded so it also reads well in a
// terminal. It knows nothing of runs, figures or workloads; the report,
// the sweep matrices and the workloads' own views build their tables with
// it, and the HTML report renders the same tables.
package table

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Table is one rendered table: cells are final text, shared by the
// markdown and HTML renderers.
type Table struct {
	Title   string
	Headers []string
	// Right marks right-aligned (numeric) columns.
	Right []bool
	Rows  [][]string
	// Notes are printed under the table.
	Notes []string
}

// WriteMarkdown appends t as a markdown table under a heading of level
// ("##"), its columns padded to their widest cell, its notes below it.
func WriteMarkdown(b *strings.Builder, t Table, level string) {
	fmt.Fprintf(b, "%s %s\n\n", level, t.Title)
	if len(t.Rows) > 0 {
		widths := make([]int, len(t.Headers))
		for i, h := range t.Headers {
			widths[i] = max(3, Width(h))
		}
		for _, row := range t.Rows {
			for i, c := range row {
				widths[i] = max(widths[i], Width(escape(c)))
			}
		}
		line := func(cells []string, sep bool) {
			b.WriteString("|")
			for i := range t.Headers {
				c := ""
				if i < len(cells) {
					c = escape(cells[i])
				}
				right := i < len(t.Right) && t.Right[i]
				switch {
				case sep && right:
					c = strings.Repeat("-", widths[i]-1) + ":"
				case sep:
					c = strings.Repeat("-", widths[i])
				}
				pad := strings.Repeat(" ", widths[i]-Width(c))
				if right {
					fmt.Fprintf(b, " %s%s |", pad, c)
				} else {
					fmt.Fprintf(b, " %s%s |", c, pad)
				}
			}
			b.WriteString("\n")
		}
		line(t.Headers, false)
		line(nil, true)
		for _, row := range t.Rows {
			line(row, false)
		}
		b.WriteString("\n")
	}
	for _, n := range t.Notes {
		fmt.Fprintf(b, "%s\n", n)
	}
	if len(t.Notes) > 0 {
		b.WriteString("\n")
	}
}

// Width is the columns s takes in a terminal: its runes (every character
// rumbench prints is one column wide).
func Width(s string) int { return utf8.RuneCountInString(s) }

// escape keeps a cell's | from ending it.
func escape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
