package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"rumbench/internal/engine"
	"rumbench/internal/runner"
	"rumbench/internal/shard"
)

// Shard is a request to run this process as one shard of a run (--shard
// and its companions), free of flags.
type Shard struct {
	// Given reports whether a setting was given explicitly (by flag name).
	Given   func(name string) bool
	Spec    string
	Timeout time.Duration
	RunID   string
	// EngineOpts are the run's --engine-opt values.
	EngineOpts []string
	// Getenv reads the shard index of "/N" from the environment.
	Getenv func(string) string
	// DefaultRunID is the id the shards of a run of count shards agree on
	// without --shard-run.
	DefaultRunID func(count int) string
}

// PlanShard checks a shard request and returns the runner's shard options
// (nil without --shard). Errors are the user's input.
func PlanShard(r Shard) (*runner.ShardOptions, error) {
	if !r.Given("shard") {
		for _, n := range []string{"shard-timeout", "shard-run"} {
			if r.Given(n) {
				return nil, bad(fmt.Errorf("--%s applies to sharded runs only: add --shard INDEX/COUNT or drop it", n))
			}
		}
		return nil, nil
	}
	spec, err := shard.Parse(r.Spec, r.Getenv)
	if err != nil {
		return nil, bad(err)
	}
	if r.Timeout <= 0 {
		return nil, bad(fmt.Errorf("--shard-timeout must be positive, got %s", r.Timeout))
	}
	if err := CheckShardable(r.Given, r.EngineOpts, "memory-limit"); err != nil {
		return nil, err
	}
	id := r.RunID
	if id == "" {
		id = r.DefaultRunID(spec.Count)
	}
	return &runner.ShardOptions{Spec: spec, RunID: id, Timeout: r.Timeout}, nil
}

// CheckShardable refuses the settings a shard cannot run with: a managed
// server, repetitions, the settings in also, and dropping the database.
func CheckShardable(given func(name string) bool, engineOpts []string, also ...string) error {
	// Each shard is one process on its own host, against a server all
	// of them reach: a private server or a child process per shard
	// would not be shared.
	for _, n := range append([]string{"managed", "repeat"}, also...) {
		if given(n) {
			return bad(fmt.Errorf("--shard cannot be combined with --%s: the shards share one server that rumbench does not start; run each shard with --dsn", n))
		}
	}
	// One shard dropping the database at its end would end the others'.
	for _, kv := range engineOpts {
		k, val, _ := strings.Cut(kv, "=")
		if drop, err := strconv.ParseBool(strings.TrimSpace(val)); err == nil && drop && (k == "drop_database" || strings.HasSuffix(k, ".drop_database")) {
			return bad(fmt.Errorf("--shard cannot be combined with --engine-opt %s: one shard would drop the database the others still use; drop it after the run", kv))
		}
	}
	return nil
}

// CheckShardedEngines refuses engines that shards cannot share (embedded
// ones): each shard runs on its own host against one server.
func CheckShardedEngines(engines []string) error {
	for _, e := range engines {
		d, err := engine.Lookup(e)
		if err != nil {
			return bad(err)
		}
		if err := shard.CheckDriver(d); err != nil {
			return bad(fmt.Errorf("--shards: %w", err))
		}
	}
	return nil
}
