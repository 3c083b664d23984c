package plan

import (
	"fmt"

	"rumbench/internal/report"
)

// Compare plans `report --compare OLD NEW`: it pairs the groups of runs of
// the two result dirs engine by engine (when each holds one engine, those
// two whatever their names) and builds one report per pair, NEW relative
// to OLD, its runs labelled OLD and NEW. Errors are the user's input.
func Compare(dirs []string, format, html string, base int) ([]*report.Report, error) {
	if len(dirs) != 2 {
		return nil, bad(fmt.Errorf("--compare takes two result dirs, OLD and NEW; got %d", len(dirs)))
	}
	if format == "csv" || html != "" || base != 1 {
		return nil, bad(fmt.Errorf("--compare prints markdown or --format json only (no csv, --html or --base)"))
	}
	old, err := report.LoadGroups(dirs[:1])
	if err != nil {
		return nil, bad(err)
	}
	cur, err := report.LoadGroups(dirs[1:])
	if err != nil {
		return nil, bad(err)
	}
	pairs := pairGroups(old, cur)
	if len(pairs) == 0 {
		return nil, bad(fmt.Errorf("%s and %s have no engine in common to compare", dirs[0], dirs[1]))
	}
	var reps []*report.Report
	for _, p := range pairs {
		rep, err := report.BuildGroups(p, report.Options{})
		if err != nil {
			return nil, bad(err)
		}
		rep.Runs[0].Label = "OLD " + rep.Runs[0].Label
		rep.Runs[1].Label = "NEW " + rep.Runs[1].Label
		reps = append(reps, rep)
	}
	return reps, nil
}

// pairGroups pairs old's and cur's groups of one engine, in old's order;
// one group each is a pair whatever the engines.
func pairGroups(old, cur [][]*report.Bundle) [][][]*report.Bundle {
	if len(old) == 1 && len(cur) == 1 {
		return [][][]*report.Bundle{{old[0], cur[0]}}
	}
	name := func(g []*report.Bundle) string { return g[0].Run.Engine.Name }
	var pairs [][][]*report.Bundle
	for _, o := range old {
		for _, c := range cur {
			if name(o) == name(c) {
				pairs = append(pairs, [][]*report.Bundle{o, c})
			}
		}
	}
	return pairs
}
