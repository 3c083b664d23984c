package runner

import (
	"context"
	"fmt"

	"rumbench/internal/model"
	"rumbench/internal/results"
)

// readConfigDiff records in run.json what the engine runs with that
// differs from its defaults (model.ConfigDiffer), read back from the engine
// or its server. An engine that cannot say records nothing; one whose
// read fails (a server without the catalog it is read from) gets a note
// instead of failing the run: the measurement does not depend on it.
func readConfigDiff(ctx context.Context, o *Options, db model.DB, run *results.Run) {
	cd, ok := db.(model.ConfigDiffer)
	if !ok {
		return
	}
	d, err := cd.ConfigDiff(ctx)
	if err != nil {
		note := fmt.Sprintf("config diff: not read back from %s: %v", run.Engine.Name, err)
		run.Notes = append(run.Notes, note)
		fmt.Fprintf(o.Log, "NOTE: %s\n", note)
		return
	}
	run.Engine.ConfigDiff = d
}
