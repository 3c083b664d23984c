package verifycli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "rumbench/internal/engine/all"
	"rumbench/internal/plan"
	"rumbench/internal/runner"
)

// The refusals are the user's input and create nothing: verify opens
// read-only.
func TestRefusalsAreBadInput(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	for name, c := range map[string]struct {
		r    Request
		want string
	}{
		"install without managed": {Request{Verify: plan.Verify{Engine: "pebble", DataDir: dir}, Install: "/opt/x"}, "--install"},
		"no engine":               {Request{}, "--engine is required"},
		"a variant":               {Request{Verify: plan.Verify{Engine: "zstd=pebble", DataDir: dir}}, "verify takes the engine, not a variant"},
		"no data dir":             {Request{Verify: plan.Verify{Engine: "sqlite"}}, "--data-dir is required"},
		"workload without checks": {Request{Verify: plan.Verify{Engine: "sqlite", DataDir: dir, Workload: "ibench"}}, "has no checks of its own"},
		"missing data":            {Request{Verify: plan.Verify{Engine: "sqlite", DataDir: missing}}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			var out strings.Builder
			err := Run(context.Background(), &c.r, &out)
			var bad *runner.BadInputError
			if !errors.As(err, &bad) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want bad input naming %q", err, c.want)
			}
			if out.Len() != 0 {
				t.Errorf("printed %q before refusing", out.String())
			}
		})
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("verify created the data dir it was given")
	}
}
