package reportcli

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"rumbench/internal/runner"
)

var run1 = filepath.Join("..", "..", "report", "testdata", "run1")

func TestRefusalsAreBadInput(t *testing.T) {
	for want, o := range map[string]Options{
		`unknown --format "xml"`:       {Base: "1", Format: "xml"},
		"--base 0 is out of range":     {Base: "0", Format: "md"},
		"--compare-to compares sweeps": {Base: "1", Format: "md", CompareTo: run1},
	} {
		var out, errw strings.Builder
		err := Run(&out, &errw, o, []string{run1})
		var bad *runner.BadInputError
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want bad input naming %q", o, err, want)
		}
		if out.Len()+errw.Len() != 0 {
			t.Errorf("%+v: printed before refusing:\n%s%s", o, out.String(), errw.String())
		}
	}
}

func TestMarkdownEndsWithTheVerdict(t *testing.T) {
	var out, errw strings.Builder
	if err := Run(&out, &errw, Options{Base: "1", Format: "md"}, []string{run1}); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	i := strings.LastIndex(md, "verdict")
	if i < 0 || strings.Contains(md[i:], "\n## ") || errw.Len() != 0 {
		t.Errorf("want the verdict last and nothing on errw:\n%s\nerrw: %s", md, errw.String())
	}
}
