package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"rumbench/internal/merge"
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
			j, err := merge.Prepare(args, out)
			if err != nil {
				return bad(err)
			}
			return j.Write(cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory of the merged bundle (one subdirectory per engine, or label, as a run's --out)")
	return cmd
}
