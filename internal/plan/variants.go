package plan

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"rumbench/internal/engine"
	"rumbench/internal/engineopt"
	"rumbench/internal/model"
	"rumbench/internal/runner"
)

// labelSyntax is what a label may be: it names a bundle directory and
// scopes settings (LABEL.key), so no dots, slashes or spaces.
var labelSyntax = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// ParseEngines reads --engine's entries: LABEL=ENGINE, or ENGINE alone,
// labelled by its name. It refuses a label used twice, an unlabelled
// engine listed twice, and a label that is another engine's name (its
// scope would be ambiguous).
func ParseEngines(entries []string) ([]Engine, error) {
	out := make([]Engine, 0, len(entries))
	seen := map[string]Engine{}
	for _, entry := range entries {
		label, name, labelled := strings.Cut(entry, "=")
		if !labelled {
			name = label
		}
		if labelled && !labelSyntax.MatchString(label) {
			return nil, bad(fmt.Errorf("--engine %s: label %q must be letters, digits, - or _ (it names a results directory and scopes --engine-opt %s.KEY)", entry, label, label))
		}
		if labelled && label != name {
			if _, err := engine.Lookup(label); err == nil {
				return nil, bad(fmt.Errorf("--engine %s: label %s is the name of another engine: choose another label", entry, label))
			}
		}
		e := Engine{Label: label, Name: name}
		if prev, dup := seen[label]; dup {
			if !labelled && prev.Label == prev.Name {
				return nil, bad(fmt.Errorf("--engine: %s is listed twice: give each a label: --engine a=%s,b=%s", name, name, name))
			}
			return nil, bad(fmt.Errorf("--engine: label %s is used twice: give each variant its own label", label))
		}
		seen[label] = e
		out = append(out, e)
	}
	return out, nil
}

// Labelled reports whether some entry has a label other than its engine's
// name: only such runs record labels (a bare run's run.json is as before).
func Labelled(es []Engine) bool {
	for _, e := range es {
		if e.label() != e.Name {
			return true
		}
	}
	return false
}

// labels are the entries' labels, in order.
func labels(es []Engine) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.label()
	}
	return out
}

// entries are the variants as --engine takes them (LABEL=ENGINE, or the
// bare name), as run.json's config records them.
func entries(vs []model.Variant) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Engine
		if !v.Bare() {
			out[i] = v.Label + "=" + v.Engine
		}
	}
	return out
}

// variantView are the settings opts as the variant e sees them among the
// labels ls: LABEL.key as its engine's, over engine.key, over key; other
// labels' left out. Plan's one use of engineopt.Scoped.ForVariant: the
// variants carry what it gives (resolveVariants), and the runner, sweep,
// crashtest and the managed servers never scope again.
func variantView(opts map[string]string, e Engine, ls []string) engineopt.Scoped {
	return engineopt.Scoped(opts).ForVariant(e.label(), e.Name, ls)
}

// resolveVariants makes the variants of the entries es, labels ls among
// them: each with its engine's settings of opts (runner.OptionsFor, keyed
// as the engine takes them) and its server's of serverOpts
// (variantServerOpts), every scope applied.
func resolveVariants(es []Engine, opts map[string]string, serverOpts, ls []string) []model.Variant {
	out := make([]model.Variant, len(es))
	for i, e := range es {
		out[i] = model.Variant{
			Label:   e.label(),
			Engine:  e.Name,
			Options: runner.OptionsFor(e.Name, variantView(opts, e, ls)),
			Server:  variantServerOpts(serverOpts, e, ls),
		}
	}
	return out
}

// variantServerOpts are --server-opt's settings as the variant e sees them
// (variantView), in the order given: its LABEL.key ones as its engine's,
// other labels' left out.
func variantServerOpts(kvs []string, e Engine, ls []string) []string {
	all := map[string]string{}
	var order []string
	for _, kv := range kvs {
		k, val, _ := strings.Cut(kv, "=")
		all[k] = val
		order = append(order, k)
	}
	mine := variantView(all, e, ls)
	var out []string
	for _, k := range order {
		if sc, key, scoped := engineopt.Split(k); scoped && sc == e.label() && sc != e.Name {
			k = engineopt.Join(e.Name, key)
		}
		if val, ok := mine[k]; ok {
			out = append(out, k+"="+val)
			delete(mine, k)
		}
	}
	return out
}

// asEngines are the variants as entries of --engine.
func asEngines(vs []model.Variant) []Engine {
	out := make([]Engine, len(vs))
	for i, v := range vs {
		out[i] = Engine{Label: v.Label, Name: v.Engine}
	}
	return out
}

// variantLabels are the variants' labels, in order.
func variantLabels(vs []model.Variant) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Label
	}
	return out
}

// labelled reports whether some variant has a label other than its
// engine's name (Labelled of the variants).
func labelled(vs []model.Variant) bool {
	for _, v := range vs {
		if !v.Bare() {
			return true
		}
	}
	return false
}

// variantNames are the variants' engines, each once, in order.
func variantNames(vs []model.Variant) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range vs {
		if !seen[v.Engine] {
			seen[v.Engine] = true
			out = append(out, v.Engine)
		}
	}
	return out
}

// uniqueNames are the entries' engines, each once, in order.
func uniqueNames(es []Engine) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range es {
		if !seen[e.Name] {
			seen[e.Name] = true
			out = append(out, e.Name)
		}
	}
	return out
}

// checkDistinct refuses two variants of one engine that end up with the
// same settings (opts as each variant sees them): their comparison would
// measure nothing but noise.
func checkDistinct(es []Engine, opts map[string]string, serverOpts, installs []string) error {
	ls := labels(es)
	server := map[string]string{}
	for _, kv := range serverOpts {
		k, v, _ := strings.Cut(kv, "=")
		server[k] = v
	}
	// An installation is a server setting here: two builds differ.
	for _, kv := range installs {
		scope, dir, _ := strings.Cut(kv, "=")
		server[engineopt.Join(scope, "install")] = dir
	}
	settingsOf := func(e Engine) string {
		var parts []string
		for k, v := range variantView(opts, e, ls) {
			if sc, _, scoped := engineopt.Split(k); !scoped || sc == e.Name {
				parts = append(parts, "opt "+k+"="+v)
			}
		}
		for k, v := range variantView(server, e, ls) {
			if sc, _, scoped := engineopt.Split(k); !scoped || sc == e.Name {
				parts = append(parts, "server "+k+"="+v)
			}
		}
		sort.Strings(parts)
		return e.Name + "\n" + strings.Join(parts, "\n")
	}
	seen := map[string]string{}
	for _, e := range es {
		s := settingsOf(e)
		if prev, dup := seen[s]; dup {
			return bad(fmt.Errorf("%s and %s have the same settings: give one of them a setting of its own (--engine-opt %s.KEY=VALUE)", prev, e.label(), e.label()))
		}
		seen[s] = e.label()
	}
	return nil
}
