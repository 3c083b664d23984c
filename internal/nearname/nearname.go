// Package nearname finds the names a mistyped one is a near miss of, for
// "did you mean" suggestions.
package nearname

import (
	"sort"
	"strings"
)

// Near are the names within an edit distance of 2 of name, closest first
// (then in name order), at most 3; failing that, those that start with
// name when it has 3 characters or more.
func Near(name string, names []string) []string {
	type cand struct {
		name string
		d    int
	}
	var near, prefix []cand
	for _, n := range names {
		if d := Distance(name, n); d <= 2 {
			near = append(near, cand{n, d})
		} else if len(name) >= 3 && strings.HasPrefix(n, name) {
			prefix = append(prefix, cand{n, d})
		}
	}
	if len(near) == 0 {
		near = prefix
	}
	sort.SliceStable(near, func(i, j int) bool {
		if near[i].d != near[j].d {
			return near[i].d < near[j].d
		}
		return near[i].name < near[j].name
	})
	var out []string
	for i, n := range near {
		if i == 3 {
			break
		}
		out = append(out, n.name)
	}
	return out
}

// Distance is the Levenshtein distance of a and b.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
