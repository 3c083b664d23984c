package main

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"rumbench/internal/merge"
	"rumbench/internal/results"
	"rumbench/internal/runner"
)

// newMergeCmd returns `rumbench merge`: one bundle of a sharded run's
// shard bundles.
func newMergeCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge DIR... --out OUT",
		Short: "Make one results bundle of the shards' bundles of a sharded run (--shard i/N)",
		Long: `Merge the bundles the shards of one run wrote (` + "`rumbench run --shard i/N`" + `, one
--out directory per shard) into one bundle per engine in --out (per label
for labelled variants: <out>/<label>), which
` + "`rumbench report`" + ` reads like any run's. Counts and rates add over the shards;
latencies are the shards' HdrHistograms merged exactly; intervals add by
index (every shard started each step's clock at the agreed time, so their
intervals share boundaries); steps shard 0 ran alone (l.x, maint, scan) are
its own. The server's system metrics come from a shard that ran on the
server's host (else they are null, saying why); the client's CPU adds up;
each shard's own metrics stay in the step's details.shard_metrics. run.json
lists the shards in merged_from. Every shard of the run must be given.`,
		Example: "  rumbench merge shard-0 shard-1 shard-2 --out merged\n  rumbench report merged",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &runner.BadInputError{Err: fmt.Errorf("no shard directory given: name the --out directory of every shard of the run")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := func(err error) error { return &runner.BadInputError{Err: err} }
			if out == "" {
				return bad(fmt.Errorf("--out is required: the directory the merged bundle is written to"))
			}
			found, err := merge.Find(args)
			if err != nil {
				return bad(err)
			}
			var engines []string
			for e := range found {
				engines = append(engines, e)
			}
			sort.Strings(engines)
			if err := merge.CheckOut(out, engines); err != nil {
				return bad(err)
			}
			ordered := map[string][]*results.Bundle{}
			for _, e := range engines {
				shards, err := merge.Check(found[e])
				if err != nil {
					return bad(err)
				}
				ordered[e] = shards
			}
			w := cmd.OutOrStdout()
			for _, e := range engines {
				dir := filepath.Join(out, e)
				warnings, err := merge.Write(dir, ordered[e])
				if err != nil {
					return fmt.Errorf("merge %s: %w", e, err)
				}
				for _, warn := range warnings {
					fmt.Fprintf(cmd.ErrOrStderr(), "rumbench merge: warning: %s: %s\n", e, warn)
				}
				fmt.Fprintf(w, "rumbench merge: %s: %d shards of run %s merged into %s\n", e, len(ordered[e]), ordered[e][0].Run.Shard.RunID, dir)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory of the merged bundle (one subdirectory per engine, or label, as a run's --out)")
	return cmd
}
