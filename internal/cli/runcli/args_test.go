package runcli

import (
	"errors"
	"strings"
	"testing"

	_ "rumbench/internal/workload/all"
)

// --workload NAME is `run NAME`: rewritten in place, refused when unknown
// or contradicting the subcommand; other commands are left alone.
func TestRewriteWorkloadFlag(t *testing.T) {
	for _, c := range []struct {
		in, want, err string
	}{
		{"run --workload hotrow --engine null", "run hotrow --engine null", ""},
		{"run --engine null --workload=linkbench", "run linkbench --engine null", ""},
		{"run hotrow --workload hotrow", "run hotrow", ""},
		{"run ibench --workload hotrow", "", "--workload hotrow contradicts `run ibench`"},
		{"run --workload nope", "", `unknown --workload "nope"`},
		{"run -- --workload hotrow", "run -- --workload hotrow", ""},
		{"sweep --workload hotrow", "sweep --workload hotrow", ""},
	} {
		got, err := RewriteWorkloadFlag(strings.Fields(c.in))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || strings.Join(got, " ") != c.want {
			t.Errorf("%q: got %q (%v), want %q", c.in, strings.Join(got, " "), err, c.want)
		}
	}
}

// An unknown flag that is another workload's says whose it is.
func TestExplainFlagError(t *testing.T) {
	err := ExplainFlagError(errors.New("unknown flag: --tables"), "linkbench")
	if !strings.Contains(err.Error(), "--tables applies to workload") || !strings.Contains(err.Error(), "not linkbench") {
		t.Errorf("got %v", err)
	}
	if other := errors.New("unknown flag: --nothing-like-it"); ExplainFlagError(other, "ibench") != other {
		t.Error("a flag no workload has is left as it is")
	}
}
