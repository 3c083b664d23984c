package merge

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"rumbench/internal/results"
)

// Job is a checked merge of the shard bundles under some directories: per
// engine (or label), its shards in order, to be merged into Out/<engine>.
type Job struct {
	Out     string
	Engines []string
	Shards  map[string][]*results.Bundle
}

// Prepare finds the shard bundles under dirs and checks them and out (as
// Find, CheckOut and Check do); its errors are the user's input.
func Prepare(dirs []string, out string) (*Job, error) {
	found, err := Find(dirs)
	if err != nil {
		return nil, err
	}
	j := &Job{Out: out, Shards: map[string][]*results.Bundle{}}
	for e := range found {
		j.Engines = append(j.Engines, e)
	}
	sort.Strings(j.Engines)
	if err := CheckOut(out, j.Engines); err != nil {
		return nil, err
	}
	for _, e := range j.Engines {
		shards, err := Check(found[e])
		if err != nil {
			return nil, err
		}
		j.Shards[e] = shards
	}
	return j, nil
}

// Write merges each engine's shards into Out/<engine>, saying so on w and
// giving the merge's warnings on errw.
func (j *Job) Write(w, errw io.Writer) error {
	for _, e := range j.Engines {
		dir := filepath.Join(j.Out, e)
		warnings, err := Write(dir, j.Shards[e])
		if err != nil {
			return fmt.Errorf("merge %s: %w", e, err)
		}
		for _, warn := range warnings {
			fmt.Fprintf(errw, "rumbench merge: warning: %s: %s\n", e, warn)
		}
		fmt.Fprintf(w, "rumbench merge: %s: %d shards of run %s merged into %s\n", e, len(j.Shards[e]), j.Shards[e][0].Run.Shard.RunID, dir)
	}
	return nil
}
