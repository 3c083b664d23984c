package table

import (
	"strings"
	"testing"
)

func TestWriteMarkdownPadsAlignsAndEscapes(t *testing.T) {
	var b strings.Builder
	WriteMarkdown(&b, Table{
		Title:   "t",
		Headers: []string{"run", "µs"},
		Right:   []bool{false, true},
		Rows:    [][]string{{"a|b", "1"}, {"c", "12345"}},
		Notes:   []string{"note"},
	}, "##")
	want := "## t\n\n" +
		"| run  |    µs |\n" +
		"| ---- | ----: |\n" +
		"| a\\|b |     1 |\n" +
		"| c    | 12345 |\n\n" +
		"note\n\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestWriteMarkdownWithoutRowsPrintsTitleAndNotes(t *testing.T) {
	var b strings.Builder
	WriteMarkdown(&b, Table{Title: "empty", Headers: []string{"x"}, Notes: []string{"none"}}, "###")
	if got, want := b.String(), "### empty\n\nnone\n\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
