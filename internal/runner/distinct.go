package runner

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"rumbench/internal/engine"
	"rumbench/internal/engineopt"
	"rumbench/internal/model"
)

// readBack is what tells a variant apart once its engine is open: the
// engine's version, the installation its managed server runs, and its
// settings as read back (the config diff; for a server engine also its
// engine options, which the server's diff does not show).
type readBack struct {
	label, engine, version, install string
	settings                        map[string]string
}

// CheckDistinctSettings refuses two variants of one engine that end up the
// same once open: plan refuses settings given alike, but two spellings of
// one value (cache_size=64MB and 67108864), or a setting equal to the
// default, pass it. Each variant of an engine listed more than once is
// opened once in a scratch directory (its managed server started there
// too), read back and closed, before anything is measured; embedded
// engines open in milliseconds, a managed server costs one more start.
// Variants of a server rumbench does not manage share that server, so
// only their engine options tell them apart: plan's check covers them.
func CheckDistinctSettings(ctx context.Context, o *Options) error {
	count := map[string]int{}
	for _, v := range o.Variants {
		count[v.Engine]++
	}
	var seen []readBack
	for _, v := range o.Variants {
		name := v.Engine
		if count[name] < 2 {
			continue
		}
		d, err := engine.Lookup(name)
		if err != nil {
			return &BadInputError{Err: err}
		}
		if d.Kind() != model.Embedded && o.StartServer == nil {
			continue
		}
		rb, probed, err := probeVariant(ctx, o, v, d)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			// The run itself meets the same failure in this variant's
			// turn and handles it as it always has.
			fmt.Fprintf(o.Log, "NOTE: %s's settings not read back before the run: %v\n", v.Label, err)
			continue
		}
		if !probed {
			continue
		}
		for _, prev := range seen {
			if prev.sameAs(rb) {
				flag := "--engine-opt"
				if d.Kind() != model.Embedded {
					flag = "--server-opt"
				}
				return badInput("%s and %s have the same settings once open (%s %s, read back: %s): give one of them a setting of its own (%s %s.KEY=VALUE)",
					prev.label, rb.label, name, rb.version, rb.describe(), flag, rb.label)
			}
		}
		seen = append(seen, rb)
	}
	return nil
}

// probeVariant opens variant v in a scratch directory and reads it back;
// probed is false for a server engine that has no managed server (nothing
// of its own to read back).
func probeVariant(ctx context.Context, o *Options, v model.Variant, d model.Driver) (rb readBack, probed bool, err error) {
	scratch, err := os.MkdirTemp("", "rumbench-probe-")
	if err != nil {
		return rb, false, fmt.Errorf("read back %s's settings: %w", v.Label, err)
	}
	defer os.RemoveAll(scratch)
	rb = readBack{label: v.Label, engine: v.Engine, settings: map[string]string{}}
	dsn := o.DSN
	if d.Kind() != model.Embedded {
		srv, err := startServer(ctx, o, v.Label, scratch)
		if err != nil {
			return rb, false, err
		}
		if srv == nil {
			return rb, false, nil
		}
		defer srv.Stop()
		dsn, rb.install = srv.DSN, srv.Settings["managed_install"]
		for k, val := range v.Options {
			rb.settings["option "+k] = val
		}
	}
	db, err := openEngine(ctx, o, v, d, scratch, dsn)
	if err != nil {
		return rb, false, fmt.Errorf("read back %s's settings: %w", v.Label, err)
	}
	defer db.Close()
	rb.version = db.Info().Version
	cd, ok := db.(model.ConfigDiffer)
	if !ok {
		// Nothing read back: plan's check of the settings as given stands.
		return rb, false, nil
	}
	diff, err := cd.ConfigDiff(ctx)
	if err != nil {
		fmt.Fprintf(o.Log, "NOTE: %s's settings not read back before the run: %v\n", v.Label, err)
		return rb, false, nil
	}
	for _, s := range diff.Settings {
		rb.settings[s.Key] = s.Value
	}
	return rb, true, nil
}

// sameAs reports whether two read-backs are one variant: same engine,
// version, installation and settings, values compared for what they mean
// (engineopt.SameValue: 64MB = 67108864).
func (r readBack) sameAs(s readBack) bool {
	if r.engine != s.engine || r.version != s.version || r.install != s.install || len(r.settings) != len(s.settings) {
		return false
	}
	for k, v := range r.settings {
		w, ok := s.settings[k]
		if !ok || !engineopt.SameValue(v, w) {
			return false
		}
	}
	return true
}

// describe is the read-back settings in short: "defaults" when none
// differ.
func (r readBack) describe() string {
	if len(r.settings) == 0 {
		return "defaults"
	}
	parts := make([]string, 0, len(r.settings))
	for k, v := range r.settings {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}
