package managed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// All is --managed without a value: every selected server engine.
const All = "all"

// Request is what a run asks of managed servers (--managed and its
// companions).
type Request struct {
	// Given is set when --managed was given; Engines are its values (All,
	// or "true" from {"managed": true} in --config, for every server
	// engine).
	Given   bool
	Engines []string
	// Selected are the run's engines; Servers those of them that run on
	// a server.
	Selected   []string
	Servers    []string
	ServerOpts []string
	KeepData   bool
	DSN        string
	DataDir    string
}

// Plan is the private servers a run starts and their settings.
type Plan struct {
	Engines  []string
	Settings map[string][]Setting
}

// NewPlan checks a request against the run and routes the server settings
// (Route); nil without --managed.
func NewPlan(r Request) (*Plan, error) {
	if !r.Given {
		switch {
		case len(r.ServerOpts) > 0:
			return nil, errors.New("--server-opt configures a managed server: add --managed (or --managed=ENGINE)")
		case r.KeepData:
			return nil, errors.New("--keep-data keeps a managed server's data: add --managed and --data-dir")
		}
		return nil, nil
	}
	var list []string
	for _, e := range r.Engines {
		if e == All || e == "true" {
			list = append(list, r.Servers...)
			continue
		}
		if !IsManageable(e) {
			return nil, fmt.Errorf("--managed %s: only %s run on a managed server", e, strings.Join(Engines, ", "))
		}
		if !contains(r.Selected, e) {
			return nil, fmt.Errorf("--managed %s: %s is not in --engine: add it there", e, e)
		}
		list = append(list, e)
	}
	list = uniq(list)
	if len(list) == 0 {
		return nil, fmt.Errorf("--managed: no server engine in --engine %s (postgres, innodb, myrocks run on servers)", strings.Join(r.Selected, ","))
	}
	if r.DSN != "" && len(list) == len(r.Servers) {
		return nil, errors.New("--dsn addresses a server, --managed starts one: give one of them")
	}
	if r.KeepData && r.DataDir == "" {
		return nil, errors.New("--keep-data needs --data-dir (a temporary data dir is always removed)")
	}
	for _, e := range list {
		if err := Check(e); err != nil {
			return nil, err
		}
	}
	settings, err := Route(list, r.ServerOpts)
	if err != nil {
		return nil, err
	}
	return &Plan{Engines: list, Settings: settings}, nil
}

// Manages reports whether the plan starts a server for engine.
func (p *Plan) Manages(engine string) bool { return p != nil && contains(p.Engines, engine) }

// CheckKept checks that dataDir holds a server a run kept (--managed
// --keep-data), for engine, to start again (verify --managed).
func CheckKept(engine, dataDir, dsn string) error {
	switch {
	case !IsManageable(engine):
		return fmt.Errorf("--managed: engine %s does not run on a managed server (only %s)", engine, strings.Join(Engines, ", "))
	case dsn != "":
		return errors.New("--dsn addresses a server, --managed starts one: give one of them")
	case dataDir == "":
		return errors.New("--managed needs --data-dir: the directory of a run with --managed --keep-data (<data-dir>/<engine> when it ran several engines)")
	}
	if _, err := os.Stat(filepath.Join(dataDir, "server", "data")); err != nil {
		return fmt.Errorf("--data-dir %s holds no kept managed server (no server/data): give the directory of a run with --managed --keep-data (<data-dir>/<engine> when it ran several engines)", dataDir)
	}
	return nil
}

// IsBadInput reports whether a Start error is the user's input: a setting
// the server rejected or an unusable data dir.
func IsBadInput(err error) bool {
	var rej *RejectedError
	return errors.As(err, &rej) || errors.Is(err, ErrBadDir)
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
