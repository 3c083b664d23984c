package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rumbench/internal/runner"
	"rumbench/internal/shard"
)

// shardFlags are --shard and its companions: this process as one shard of
// a run whose clients several processes (hosts, pods) share.
type shardFlags struct {
	spec    string
	timeout time.Duration
	runID   string
}

func addShardFlags(fl *pflag.FlagSet, s *shardFlags) {
	fl.StringVar(&s.spec, "shard", "", "run shard INDEX/COUNT of the clients against one server (2/3; /3 takes INDEX from $"+shard.EnvIndex+"): shard i runs the tables i, i+N, ... with their clients (with one table per client, clients i, i+N, ...), every step starts on all shards at one time agreed through a table on the server, steps on all tables (l.x, maint, scan) run on shard 0; \"rumbench merge\" makes one bundle of the shards'")
	fl.DurationVar(&s.timeout, "shard-timeout", time.Minute, "with --shard: end the step when another shard has not been heard from for this long (it died or lost the server), naming it; results so far are kept")
	fl.StringVar(&s.runID, "shard-run", "", "with --shard: the id the shards of one run share in the barrier table (default: a hash of the run's flags other than --shard, --shard-timeout, --out, --data-dir and --dsn, so shards given the same arguments agree)")
}

// options turns the flags into the runner's shard options (nil without
// --shard).
func (s *shardFlags) options(cmd *cobra.Command, workloadName string) (*runner.ShardOptions, error) {
	fl := cmd.Flags()
	if !fl.Changed("shard") {
		for _, n := range []string{"shard-timeout", "shard-run"} {
			if fl.Changed(n) {
				return nil, &runner.BadInputError{Err: fmt.Errorf("--%s applies to sharded runs only: add --shard INDEX/COUNT or drop it", n)}
			}
		}
		return nil, nil
	}
	spec, err := shard.Parse(s.spec, os.Getenv)
	if err != nil {
		return nil, &runner.BadInputError{Err: err}
	}
	if s.timeout <= 0 {
		return nil, &runner.BadInputError{Err: fmt.Errorf("--shard-timeout must be positive, got %s", s.timeout)}
	}
	if err := checkShardFlags(fl, "memory-limit"); err != nil {
		return nil, err
	}
	id := s.runID
	if id == "" {
		id = defaultRunID(fl, workloadName, spec.Count)
	}
	return &runner.ShardOptions{Spec: spec, RunID: id, Timeout: s.timeout}, nil
}

// checkShardFlags refuses the flags a shard cannot run with (the flags
// in also: of those that may be given, which are refused too).
func checkShardFlags(fl *pflag.FlagSet, also ...string) error {
	// Each shard is one process on its own host, against a server all
	// of them reach: a private server or a child process per shard
	// would not be shared.
	for _, n := range append([]string{"managed", "repeat"}, also...) {
		if fl.Changed(n) {
			return &runner.BadInputError{Err: fmt.Errorf("--shard cannot be combined with --%s: the shards share one server that rumbench does not start; run each shard with --dsn", n)}
		}
	}
	// One shard dropping the database at its end would end the others'.
	v, _ := fl.GetStringArray("engine-opt")
	for _, kv := range v {
		k, val, _ := strings.Cut(kv, "=")
		if drop, err := strconv.ParseBool(strings.TrimSpace(val)); err == nil && drop && (k == "drop_database" || strings.HasSuffix(k, ".drop_database")) {
			return &runner.BadInputError{Err: fmt.Errorf("--shard cannot be combined with --engine-opt %s: one shard would drop the database the others still use; drop it after the run", kv)}
		}
	}
	return nil
}

// defaultRunID hashes what all shards of a run are given alike.
func defaultRunID(fl *pflag.FlagSet, workloadName string, count int) string {
	skip := map[string]bool{"shard": true, "out": true, "data-dir": true, "dsn": true, "shard-timeout": true}
	parts := []string{workloadName, fmt.Sprint(count)}
	fl.Visit(func(f *pflag.Flag) {
		if !skip[f.Name] {
			parts = append(parts, f.Name+"="+f.Value.String())
		}
	})
	sort.Strings(parts[2:])
	return shard.RunID(parts...)
}
