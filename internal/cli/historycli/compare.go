package historycli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"rumbench/internal/report"
	"rumbench/internal/runner"
)

// Compare reports set against set as `rumbench report` does: each of sets
// is a run key recorded in the history given (a prefix of it) or a comma
// list of them, whose bundles are read from the directories recorded with
// them.
func Compare(ctx context.Context, given string, sets []string, w io.Writer) error {
	s, err := Open(ctx, given, false)
	if err != nil {
		return err
	}
	defer s.Close()
	var groups [][]*report.Bundle
	for _, arg := range sets {
		var g []*report.Bundle
		for _, key := range strings.Split(arg, ",") {
			r, err := s.RunByPrefix(ctx, strings.TrimSpace(key))
			if err != nil {
				return &runner.BadInputError{Err: err}
			}
			b, err := report.ReadBundle(r.Dir)
			if err != nil {
				return &runner.BadInputError{Err: fmt.Errorf("run %.12s: its bundle cannot be read from %s (%v): the history keeps figures, not bundles; see its figures with history show", r.Key, r.Dir, err)}
			}
			g = append(g, b)
		}
		groups = append(groups, g)
	}
	rep, err := report.BuildGroups(groups, report.Options{})
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	if err := rep.Markdown(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return rep.WriteVerdict(w)
}
