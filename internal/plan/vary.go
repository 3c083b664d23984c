package plan

import (
	"fmt"
	"regexp"
	"strings"

	"rumbench/internal/engine"
	"rumbench/internal/engineopt"
	"rumbench/internal/managed"
)

// notInLabel is what a varied value may not bring into a label.
var notInLabel = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// Vary is what a sweep's --vary and --vary-server ask for: KEY=V1,V2,...
// each, KEY scoped as --engine-opt's and --server-opt's keys are.
type Vary struct {
	// Engine are --vary's: engine settings.
	Engine []string
	// Server are --vary-server's: settings of the entries' managed
	// servers.
	Server []string
}

// VarySettings are the settings ExpandVary reads and rewrites: each
// expanded entry's own LABEL.key settings (and --install LABEL=DIR) move
// to every variant made of it, and each variant's values are added as
// settings scoped to its label.
type VarySettings struct {
	// EngineOpts are --engine-opt's, parsed; changed in place.
	EngineOpts map[string]string
	// ServerOpts are --server-opt's key=value; Installs --install's
	// SCOPE=DIR.
	ServerOpts []string
	Installs   []string
	// Servers are the managed servers; nil without --managed (then
	// --vary-server is refused).
	Servers *managed.Plan
}

// varied is one --vary or --vary-server: a setting (scoped as the
// settings' keys) and the values it takes.
type varied struct {
	flag    string // "--vary" or "--vary-server"
	server  bool
	written string // KEY as the user wrote it
	scope   string // "" for a plain key
	key     string
	values  []string
}

// what names the varied setting in messages: "--vary KEY".
func (v varied) what() string { return v.flag + " " + v.written }

// parseVary reads the KEY=V1,V2,... of one flag.
func parseVary(flag string, vs []string) ([]varied, error) {
	out := make([]varied, 0, len(vs))
	seen := map[string]bool{}
	example := "pebble.compression=none,zstd"
	if flag == "--vary-server" {
		example = "innodb.innodb_page_size=8k,16k"
	}
	for _, v := range vs {
		k, list, ok := strings.Cut(v, "=")
		if !ok || k == "" || list == "" {
			return nil, fmt.Errorf("%s %q is not KEY=V1,V2,... (e.g. %s %s)", flag, v, flag, example)
		}
		if seen[k] {
			return nil, fmt.Errorf("%s %s is given twice: give its values in one %s %s=V1,V2,...", flag, k, flag, k)
		}
		seen[k] = true
		vals := strings.Split(list, ",")
		dup := map[string]bool{}
		for _, x := range vals {
			if x == "" || dup[x] {
				return nil, fmt.Errorf("%s %s: values must be distinct and not empty, got %q", flag, k, list)
			}
			dup[x] = true
		}
		sc, key, scoped := engineopt.Split(k)
		if !scoped {
			sc, key = "", k
		}
		out = append(out, varied{flag: flag, server: flag == "--vary-server", written: k, scope: sc, key: key, values: vals})
	}
	return out, nil
}

// ExpandVary turns each entry of es into the cartesian product of the
// --vary and --vary-server settings that apply to it (KEY for every engine
// that takes it, SCOPE.KEY for the entry labelled or named SCOPE), each
// product a variant labelled LABEL-KEY-VALUE[-KEY-VALUE...] (characters a
// label may not hold become _), with its values as LABEL.KEY settings
// added to s (engine settings to EngineOpts, server ones to ServerOpts).
// The engine settings come first in a label, then the server ones, each
// in the order of their flags; the last varies fastest. An entry nothing
// applies to is kept as it is.
func ExpandVary(es []Engine, vary Vary, s *VarySettings) ([]Engine, error) {
	if len(vary.Engine) == 0 && len(vary.Server) == 0 {
		return es, nil
	}
	vs, err := parseVary("--vary", vary.Engine)
	if err != nil {
		return nil, bad(err)
	}
	server, err := parseVary("--vary-server", vary.Server)
	if err != nil {
		return nil, bad(err)
	}
	if len(server) > 0 && s.Servers == nil {
		return nil, bad(fmt.Errorf("%s varies a managed server's setting: add --managed (each variant then runs on a server of its own)", server[0].what()))
	}
	vs = append(vs, server...)
	serverGiven := normalizedServerOpts(s.ServerOpts)
	used := map[string]bool{}
	var out []Engine
	for _, e := range es {
		mine, err := variedOf(e, vs, s, serverGiven)
		if err != nil {
			return nil, err
		}
		for _, v := range mine {
			used[v.what()] = true
		}
		if len(mine) == 0 {
			out = append(out, e)
			continue
		}
		own := s.takeOwn(e)
		for _, combo := range product(mine) {
			label := e.label()
			for i, v := range mine {
				label += "-" + v.key + "-" + notInLabel.ReplaceAllString(combo[i], "_")
			}
			own.give(label, s)
			for i, v := range mine {
				if v.server {
					s.ServerOpts = append(s.ServerOpts, engineopt.Join(label, v.key)+"="+combo[i])
				} else {
					s.EngineOpts[engineopt.Join(label, v.key)] = combo[i]
				}
			}
			out = append(out, Engine{Label: label, Name: e.Name})
		}
	}
	for _, v := range vs {
		if used[v.what()] {
			continue
		}
		if v.server {
			return nil, bad(fmt.Errorf("%s applies to no engine in --engine: no managed server of theirs has the setting %s (MariaDB's are listed by `mariadbd --verbose --help`, PostgreSQL's by `postgres --describe-config`), or scope it (ENGINE.KEY or LABEL.KEY)", v.what(), v.key))
		}
		return nil, bad(fmt.Errorf("%s applies to no engine in --engine: scope it to one (ENGINE.KEY or LABEL.KEY) that takes %s", v.what(), v.key))
	}
	if err := checkLabels(out); err != nil {
		return nil, err
	}
	return out, nil
}

// variedOf are the varied settings that apply to entry e, with each
// server setting's key as its server records it. A setting scoped to e
// that e cannot take, or that a flag of the request sets too, is refused.
func variedOf(e Engine, vs []varied, s *VarySettings, serverGiven engineopt.Scoped) ([]varied, error) {
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
		scoped := v.scope != ""
		if v.server {
			if !s.Servers.Manages(e.Name) {
				if !scoped {
					continue // a plain key varies the managed servers that have it
				}
				who := e.Name
				if e.label() != e.Name {
					who = e.label() + " (" + e.Name + ")"
				}
				if managed.IsManageable(e.Name) {
					return nil, bad(fmt.Errorf("%s: %s does not run on a managed server: add --managed=%s", v.what(), who, e.Name))
				}
				return nil, bad(fmt.Errorf("%s: %s runs on no server: --vary-server varies a managed server's setting (%s)", v.what(), who, strings.Join(managed.Engines, ", ")))
			}
			key, owned, err := managed.ServerKey(e.Name, s.installOf(e), v.key)
			if err != nil {
				return nil, bad(fmt.Errorf("%s: %w", v.what(), err))
			}
			if !owned {
				if !scoped {
					continue
				}
				return nil, bad(fmt.Errorf("%s: the %s server has no setting %q (MariaDB's are listed by `mariadbd --verbose --help`, PostgreSQL's by `postgres --describe-config`)", v.what(), e.Name, v.key))
			}
			v.key = key
			if _, given := variantView(serverGiven, e, nil).Given(e.Name, key); given {
				return nil, bad(fmt.Errorf("%s and --server-opt both set %s for %s: give it once", v.what(), key, e.label()))
			}
		} else {
			if !takes[v.key] {
				if !scoped {
					continue // a plain key varies the engines that take it
				}
				return nil, bad(fmt.Errorf("%s: %s takes no engine setting %s (see rumbench engines -v; a managed server's setting is varied by --vary-server %s=...)", v.what(), e.Name, v.key, v.written))
			}
			if _, given := variantView(s.EngineOpts, e, nil).Given(e.Name, v.key); given {
				return nil, bad(fmt.Errorf("%s and --engine-opt both set %s for %s: give it once", v.what(), v.key, e.label()))
			}
		}
		mine = append(mine, v)
	}
	return mine, nil
}

// normalizedServerOpts are --server-opt's settings by key as the servers
// read them (lower case, MariaDB's dashes as underscores).
func normalizedServerOpts(kvs []string) engineopt.Scoped {
	out := engineopt.Scoped{}
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		norm := func(key string) string { return strings.ReplaceAll(strings.ToLower(key), "-", "_") }
		if sc, key, scoped := engineopt.Split(k); scoped {
			out[engineopt.Join(sc, norm(key))] = v
		} else {
			out[norm(k)] = v
		}
	}
	return out
}

// installOf is the installation e's server runs by --install (LABEL=DIR
// over ENGINE=DIR), "" for the system's.
func (s *VarySettings) installOf(e Engine) string {
	byScope := map[string]string{}
	for _, kv := range s.Installs {
		scope, dir, _ := strings.Cut(kv, "=")
		byScope[scope] = dir
	}
	if dir, ok := byScope[e.label()]; ok {
		return dir
	}
	return byScope[e.Name]
}

// ownSettings are an entry's settings scoped to its own label, taken out
// of the request to go to each variant made of it.
type ownSettings struct {
	engine  map[string]string
	server  []string // key=value
	install string
}

// takeOwn removes labelled entry e's LABEL.key settings and its --install
// LABEL=DIR from s (a bare entry's are its engine's, which its variants
// see as they are).
func (s *VarySettings) takeOwn(e Engine) ownSettings {
	var own ownSettings
	if e.label() == e.Name {
		return own
	}
	own.engine = map[string]string{}
	for k, v := range s.EngineOpts {
		if sc, key, scoped := engineopt.Split(k); scoped && sc == e.label() {
			own.engine[key] = v
			delete(s.EngineOpts, k)
		}
	}
	var rest []string
	for _, kv := range s.ServerOpts {
		if sc, key, scoped := engineopt.Split(kv); scoped && sc == e.label() {
			own.server = append(own.server, key)
			continue
		}
		rest = append(rest, kv)
	}
	s.ServerOpts = rest
	rest = nil
	for _, kv := range s.Installs {
		if scope, dir, _ := strings.Cut(kv, "="); scope == e.label() {
			own.install = dir
			continue
		}
		rest = append(rest, kv)
	}
	s.Installs = rest
	return own
}

// give scopes the settings to the variant labelled label.
func (o ownSettings) give(label string, s *VarySettings) {
	for key, v := range o.engine {
		s.EngineOpts[engineopt.Join(label, key)] = v
	}
	for _, kv := range o.server {
		s.ServerOpts = append(s.ServerOpts, engineopt.Join(label, kv))
	}
	if o.install != "" {
		s.Installs = append(s.Installs, label+"="+o.install)
	}
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
