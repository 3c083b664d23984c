package main

import (
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rumbench/internal/plan"
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
	return plan.PlanShard(plan.Shard{
		Given: fl.Changed, Spec: s.spec, Timeout: s.timeout, RunID: s.runID, EngineOpts: engineOpts(fl), Getenv: os.Getenv,
		DefaultRunID: func(count int) string { return defaultRunID(fl, workloadName, count) },
	})
}

// checkShardFlags refuses the flags a shard cannot run with
// (plan.CheckShardable).
func checkShardFlags(fl *pflag.FlagSet, also ...string) error {
	return plan.CheckShardable(fl.Changed, engineOpts(fl), also...)
}

// engineOpts are the --engine-opt values given.
func engineOpts(fl *pflag.FlagSet) []string {
	v, _ := fl.GetStringArray("engine-opt")
	return v
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
