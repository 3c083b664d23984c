package model

// Variant is one entry of a run's engine list, resolved: an engine under a
// label, with every setting scoped for it. internal/plan makes the
// variants of a request (the one place a label's LABEL.key settings are
// applied); the runner, sweep, crashtest and the managed servers take them
// as they are and never scope again.
type Variant struct {
	// Label names the variant's bundle, data dir, server and lines: the
	// engine's name for a bare engine.
	Label string
	// Engine is the engine's name.
	Engine string
	// Options are the engine's settings as this variant runs with them:
	// its label's over its engine's over the plain ones, keyed as the
	// engine takes them (no scope).
	Options map[string]string
	// Server are the managed server's settings (--server-opt) as this
	// variant sees them, KEY=VALUE in the order given: its label's
	// written as its engine's (ENGINE.KEY), the other labels' left out.
	Server []string
}

// Bare reports whether v is an engine under its own name (run.json then
// records no label).
func (v Variant) Bare() bool { return v.Label == v.Engine }

// BareVariants are variants of the named engines, each labelled by its
// name, with no settings.
func BareVariants(names ...string) []Variant {
	out := make([]Variant, len(names))
	for i, n := range names {
		out[i] = Variant{Label: n, Engine: n}
	}
	return out
}
