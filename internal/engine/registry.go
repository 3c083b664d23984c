// Package engine is the registry of storage engines. Engine packages register
// a model.Driver in init; workloads never import engine packages.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"rumbench/internal/model"
)

var (
	mu      sync.RWMutex
	drivers = map[string]model.Driver{}
	// unbuilt holds engines known to rumbench but left out of this binary
	// (build tags), with the reason, so `rumbench engines` can say how to
	// enable them.
	unbuilt = map[string]Unbuilt{}
)

// Unbuilt describes an engine that is not compiled into this binary.
type Unbuilt struct {
	Name   string
	Family model.Family
	Kind   model.Kind
	Reason string
}

// Register makes a driver available by name. It panics on a duplicate name,
// which is a programming error caught at start-up.
func Register(d model.Driver) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := drivers[d.Name()]; dup {
		panic("engine: Register called twice for " + d.Name())
	}
	drivers[d.Name()] = d
}

// RegisterUnbuilt records an engine that exists but is not in this build.
func RegisterUnbuilt(u Unbuilt) {
	mu.Lock()
	defer mu.Unlock()
	unbuilt[u.Name] = u
}

// Lookup returns the named driver or an error listing the known engines.
func Lookup(name string) (model.Driver, error) {
	mu.RLock()
	defer mu.RUnlock()
	if d, ok := drivers[name]; ok {
		return d, nil
	}
	if u, ok := unbuilt[name]; ok {
		return nil, fmt.Errorf("engine %q is not built into this binary: %s", name, u.Reason)
	}
	return nil, fmt.Errorf("unknown engine %q: choose one of %s (see `rumbench engines`)", name, strings.Join(namesLocked(), ", "))
}

// Names lists registered engines in sorted order.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	var n []string
	for k := range drivers {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// All returns the registered drivers, sorted by name.
func All() []model.Driver {
	mu.RLock()
	defer mu.RUnlock()
	var out []model.Driver
	for _, n := range namesLocked() {
		out = append(out, drivers[n])
	}
	return out
}

// AllUnbuilt returns engines left out of this build, sorted by name.
func AllUnbuilt() []Unbuilt {
	mu.RLock()
	defer mu.RUnlock()
	var out []Unbuilt
	for _, u := range unbuilt {
		if _, ok := drivers[u.Name]; !ok {
			out = append(out, u)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// CheckOptions rejects --engine-opt keys the driver does not know and values
// it cannot parse (model.ConfigValidator), and returns the full settings:
// defaults overlaid with the given options.
func CheckOptions(d model.Driver, opts map[string]string) (map[string]string, error) {
	cfg, err := CheckConfig(d, model.Config{Options: opts})
	if err != nil {
		return nil, err
	}
	return cfg.Options, nil
}

// CheckConfig is CheckOptions for a whole configuration: it also lets the
// driver check the DSN's form (model.ConfigValidator). It opens nothing. The
// returned config holds the full settings.
func CheckConfig(d model.Driver, cfg model.Config) (model.Config, error) {
	opts, err := checkKeys(d, cfg.Options)
	if err != nil {
		return cfg, err
	}
	cfg.Options = opts
	if v, ok := d.(model.ConfigValidator); ok {
		if err := v.ValidateConfig(cfg); err != nil {
			if !strings.HasPrefix(err.Error(), d.Name()) {
				err = fmt.Errorf("engine %s: %w", d.Name(), err)
			}
			return cfg, err
		}
	}
	return cfg, nil
}

// Defaults maps each of the driver's options to its default, as declared
// in its option table: what a run gets for a setting it does not give.
func Defaults(d model.Driver) map[string]string {
	out := map[string]string{}
	for _, o := range d.Options() {
		out[o.Key] = o.Default
	}
	return out
}

func checkKeys(d model.Driver, opts map[string]string) (map[string]string, error) {
	known := map[string]model.Option{}
	var keys []string
	for _, o := range d.Options() {
		known[o.Key] = o
		keys = append(keys, o.Key)
	}
	sort.Strings(keys)
	out := Defaults(d)
	for k, v := range opts {
		if _, ok := known[k]; !ok {
			if len(keys) == 0 {
				return nil, fmt.Errorf("engine %s takes no --engine-opt settings, got %q", d.Name(), k)
			}
			return nil, fmt.Errorf("engine %s has no setting %q: use one of %s", d.Name(), k, strings.Join(keys, ", "))
		}
		out[k] = v
	}
	return out, nil
}

// MarkerFile names the file in an embedded engine's data dir that records
// which engine wrote it, so a run never opens another engine's data.
const MarkerFile = "RUMBENCH_ENGINE"

// ErrForeignData is wrapped by PrepareDataDir when the directory holds data
// that is not this engine's.
var ErrForeignData = errors.New("data dir holds other data")

// PrepareDataDir creates dir if needed and checks that it is empty or holds
// data written by the named engine; it then writes the marker. A dir that
// is a file or not writable is model.ErrSetup, with the fix in the message.
func PrepareDataDir(dir, engineName string) error {
	if dir == "" {
		return fmt.Errorf("engine %s needs a data dir", engineName)
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return dataDirError(dir, "cannot be created", err)
		}
	case err != nil:
		return dataDirError(dir, "cannot be read", err)
	case len(entries) > 0:
		b, err := os.ReadFile(filepath.Join(dir, MarkerFile))
		if err != nil {
			return fmt.Errorf("%w: %s is not empty and was not written by rumbench; use an empty or new --data-dir", ErrForeignData, dir)
		}
		if got := strings.TrimSpace(string(b)); got != engineName {
			return fmt.Errorf("%w: %s holds data of engine %q, not %q; use another --data-dir", ErrForeignData, dir, got, engineName)
		}
		return nil
	}
	if err := os.WriteFile(filepath.Join(dir, MarkerFile), []byte(engineName+"\n"), 0o644); err != nil {
		return dataDirError(dir, "is not writable", err)
	}
	return nil
}

// dataDirError says what is wrong with a data dir the user gave and how to
// fix it, as model.ErrSetup.
func dataDirError(dir, what string, err error) error {
	var pe *fs.PathError
	cause := err
	if errors.As(err, &pe) {
		cause = pe.Err // the path is in the message already
	}
	if errors.Is(err, syscall.ENOTDIR) {
		return model.SetupError(fmt.Errorf("--data-dir %s is not a directory (it or a parent is a file): give a directory, new or kept from a run", dir))
	}
	return model.SetupError(fmt.Errorf("--data-dir %s %s (%v): give a directory this user can create and write, or fix its permissions", dir, what, cause))
}

// CheckDataDir is the read-only counterpart of PrepareDataDir: dir must be
// a directory holding data the named engine wrote. It creates nothing.
func CheckDataDir(dir, engineName string) error {
	if dir == "" {
		return model.SetupError(fmt.Errorf("engine %s needs --data-dir: the data dir a run kept (runs keep it when --data-dir is set)", engineName))
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return model.NoDataError(fmt.Errorf("--data-dir %s does not exist: give the data dir of a run (runs keep it when --data-dir is set)", dir))
	case err != nil:
		return dataDirError(dir, "cannot be read", err)
	case !fi.IsDir():
		return dataDirError(dir, "is not a directory", syscall.ENOTDIR)
	}
	b, err := os.ReadFile(filepath.Join(dir, MarkerFile))
	if errors.Is(err, fs.ErrNotExist) {
		return model.NoDataError(fmt.Errorf("--data-dir %s holds no data written by rumbench (no %s file): give the data dir of a %s run", dir, MarkerFile, engineName))
	}
	if err != nil {
		return dataDirError(dir, "cannot be read", err)
	}
	if got := strings.TrimSpace(string(b)); got != engineName {
		return fmt.Errorf("%w: %s holds data of engine %q, not %q: give --engine %s or another --data-dir", ErrForeignData, dir, got, engineName, got)
	}
	return nil
}

// Open looks up, checks options, prepares the data dir (embedded engines) and
// opens an engine. With cfg.ReadOnly the data dir must exist and hold this
// engine's data; nothing is created.
func Open(ctx context.Context, name string, cfg model.Config) (model.DB, error) {
	d, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if err := d.Available(); err != nil {
		return nil, fmt.Errorf("engine %s is not available: %w", name, err)
	}
	cfg, err = CheckConfig(d, cfg)
	if err != nil {
		return nil, err
	}
	if d.Kind() == model.Embedded {
		check := PrepareDataDir
		if cfg.ReadOnly {
			check = CheckDataDir
		}
		if err := check(cfg.DataDir, name); err != nil {
			return nil, err
		}
	}
	db, err := d.Open(ctx, cfg)
	if err != nil {
		// Engines name themselves ("postgres: cannot reach ..."); a
		// second prefix would only repeat it.
		if strings.HasPrefix(err.Error(), name+":") {
			return nil, err
		}
		return nil, fmt.Errorf("open engine %s: %w", name, err)
	}
	return wrapDB(ctx, db), nil
}
