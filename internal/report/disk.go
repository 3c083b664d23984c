package report

import (
	"fmt"

	"rumbench/internal/results"
)

// checkDisk says, once per run, when its disk(GB) column is not the data
// dir of the engine alone: only its database's directory on a server
// rumbench does not manage, an older bundle's size_bytes, or unknown.
func (r *Report) checkDisk() {
	for _, run := range r.Runs {
		b := run.Bundle
		var note string
		for _, name := range b.StepNames() {
			m := b.Steps[name].Metrics
			if m == nil {
				continue
			}
			switch {
			case m.DiskSource == results.DiskDatabaseDir:
				note = "disk(GB) is its database's own directory on a server it shares (one rumbench does not manage, or a sweep's managed server, which serves all the cells of a variant): the server's WAL/redo and shared files are not counted"
			case m.DiskSource == results.LegacyDiskSource:
				note = "disk(GB) is this older bundle's size_bytes, the allocated size of the whole data dir (for a server, with its other databases); its space_amp divided that size (embedded engines) or the engine's (servers)"
			case m.DiskBytes == nil && m.NullReasons["disk_bytes"] != "":
				note = "disk(GB) n/a: " + m.NullReasons["disk_bytes"]
			}
			if note != "" {
				break
			}
		}
		if note != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("#%d %s: %s", run.Num, run.Label, note))
		}
	}
}
