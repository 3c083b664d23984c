package crashcli

import (
	"errors"
	"strings"
	"testing"
	"time"

	"rumbench/internal/crashtest"
	_ "rumbench/internal/engine/all"
	"rumbench/internal/plan"
	"rumbench/internal/runner"
)

func TestPlan(t *testing.T) {
	r := plan.Crashtest{KillAfter: time.Second, Durable: true, Shape: crashtest.DefaultShape}
	specs, err := Plan([]string{"pebble", "z=sqlite"}, r)
	if err != nil || len(specs) != 2 || specs[1].Engine != "sqlite" || specs[1].Label != "z" || specs[0].Exe == "" {
		t.Fatalf("Plan: %+v, %v", specs, err)
	}
	for want, engines := range map[string][]string{`unknown engine "nope"`: {"nope"}, "label a is used twice": {"a=pebble", "a=sqlite"}} {
		var bad *runner.BadInputError
		if _, err := Plan(engines, r); !errors.As(err, &bad) || !strings.Contains(err.Error(), want) {
			t.Errorf("Plan(%v): %v, want bad input naming %q", engines, err, want)
		}
	}
}

func TestFailedError(t *testing.T) {
	want := "crashtest: 1 of 2 engines lost acknowledged rows or have inconsistent indexes"
	if got := (&FailedError{Failed: 1, Engines: 2}).Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
