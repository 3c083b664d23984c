package plan

import (
	"fmt"
	"regexp"
	"strings"

	"rumbench/internal/engine"
	"rumbench/internal/engineopt"
)

// notInLabel is what a varied value may not bring into a label.
var notInLabel = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// varied is one --vary: a setting (scoped as --engine-opt's keys) and the
// values it takes.
type varied struct {
	written string // KEY as the user wrote it
	scope   string // "" for a plain key
	key     string
	values  []string
}

// parseVary reads --vary KEY=V1,V2,...
func parseVary(vs []string) ([]varied, error) {
	out := make([]varied, 0, len(vs))
	seen := map[string]bool{}
	for _, v := range vs {
		k, list, ok := strings.Cut(v, "=")
		if !ok || k == "" || list == "" {
			return nil, fmt.Errorf("--vary %q is not KEY=V1,V2,... (e.g. --vary pebble.compression=none,zstd)", v)
		}
		if seen[k] {
			return nil, fmt.Errorf("--vary %s is given twice: give its values in one --vary %s=V1,V2,...", k, k)
		}
		seen[k] = true
		vals := strings.Split(list, ",")
		dup := map[string]bool{}
		for _, x := range vals {
			if x == "" || dup[x] {
				return nil, fmt.Errorf("--vary %s: values must be distinct and not empty, got %q", k, list)
			}
			dup[x] = true
		}
		sc, key, scoped := engineopt.Split(k)
		if !scoped {
			sc, key = "", k
		}
		out = append(out, varied{written: k, scope: sc, key: key, values: vals})
	}
	return out, nil
}

// ExpandVary turns each entry of es into the cartesian product of the
// --vary settings that apply to it (KEY for every engine that takes it,
// SCOPE.KEY for the entry labelled or named SCOPE), each product a
// variant labelled LABEL-KEY-VALUE[-KEY-VALUE...] (characters a label may
// not hold become _), with its settings as LABEL.KEY engine options added
// to opts (the entry's own LABEL.key settings move to each of its
// variants). An entry no --vary applies to is kept as it is.
func ExpandVary(es []Engine, vary []string, opts map[string]string) ([]Engine, error) {
	if len(vary) == 0 {
		return es, nil
	}
	vs, err := parseVary(vary)
	if err != nil {
		return nil, bad(err)
	}
	used := map[string]bool{}
	var out []Engine
	for _, e := range es {
		d, err := engine.Lookup(e.Name)
		if err != nil {
			return nil, bad(err)
		}
		takes := map[string]bool{}
		for _, o := range d.Options() {
			takes[o.Key] = true
		}
		var mine []varied
		for _, v := range vs {
			if v.scope != "" && v.scope != e.label() && v.scope != e.Name {
				continue
			}
			if !takes[v.key] {
				if v.scope == "" {
					continue // a plain key varies the engines that take it
				}
				return nil, bad(fmt.Errorf("--vary %s: %s takes no engine setting %s (sweep varies engine settings, not server ones): see rumbench engines", v.written, e.Name, v.key))
			}
			if _, given := engineopt.Scoped(opts).ForVariant(e.label(), e.Name, nil).Given(e.Name, v.key); given {
				return nil, bad(fmt.Errorf("--vary %s and --engine-opt both set %s for %s: give it once", v.written, v.key, e.label()))
			}
			used[v.written] = true
			mine = append(mine, v)
		}
		if len(mine) == 0 {
			out = append(out, e)
			continue
		}
		// The entry's own LABEL.key settings go to each of its variants.
		own := map[string]string{}
		if e.label() != e.Name {
			for k, v := range opts {
				if sc, key, scoped := engineopt.Split(k); scoped && sc == e.label() {
					own[key] = v
					delete(opts, k)
				}
			}
		}
		for _, combo := range product(mine) {
			label := e.label()
			for i, v := range mine {
				label += "-" + v.key + "-" + notInLabel.ReplaceAllString(combo[i], "_")
			}
			for key, v := range own {
				opts[engineopt.Join(label, key)] = v
			}
			for i, v := range mine {
				opts[engineopt.Join(label, v.key)] = combo[i]
			}
			out = append(out, Engine{Label: label, Name: e.Name})
		}
	}
	for _, v := range vs {
		if !used[v.written] {
			return nil, bad(fmt.Errorf("--vary %s applies to no engine in --engine: scope it to one (ENGINE.KEY or LABEL.KEY) that takes %s", v.written, v.key))
		}
	}
	if err := checkLabels(out); err != nil {
		return nil, err
	}
	return out, nil
}

// product lists every choice of one value per setting, the last setting
// varying fastest.
func product(vs []varied) [][]string {
	out := [][]string{nil}
	for _, v := range vs {
		var next [][]string
		for _, prefix := range out {
			for _, x := range v.values {
				next = append(next, append(append([]string(nil), prefix...), x))
			}
		}
		out = next
	}
	return out
}

// checkLabels refuses two variants under one label (two values that the
// label's character rule makes the same).
func checkLabels(es []Engine) error {
	seen := map[string]bool{}
	for _, e := range es {
		if seen[e.label()] {
			return bad(fmt.Errorf("--vary: two variants are labelled %s (their values differ only in characters a label cannot hold): choose values that differ in letters or digits", e.label()))
		}
		seen[e.label()] = true
	}
	return nil
}
