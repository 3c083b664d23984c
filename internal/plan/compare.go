package plan

import (
	"fmt"
	"strconv"
	"strings"

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
	name := func(g []*report.Bundle) string { return g[0].Run.VariantLabel() }
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

// ReportBase reads `report --base`: a run's 1-based number in the order
// the runs are listed, or a variant's label (a bundle without one is
// labelled by its engine's name). It returns the number.
func ReportBase(groups [][]*report.Bundle, base string) (int, error) {
	if n, err := strconv.Atoi(base); err == nil {
		if n < 1 {
			return 0, bad(fmt.Errorf("--base %d is out of range: runs are numbered from 1", n))
		}
		return n, nil
	}
	var known []string
	for i, g := range groups {
		l := g[0].Run.VariantLabel()
		if l == base {
			return i + 1, nil
		}
		known = append(known, l)
	}
	return 0, bad(fmt.Errorf("--base %s: no run is labelled %s: give a run's number or one of %s", base, base, strings.Join(known, ", ")))
}
