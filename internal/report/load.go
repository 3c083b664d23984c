package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"rumbench/internal/results"
)

// Load reads the bundles named by paths, in order. Each path is a bundle
// directory (it holds run.json) or a directory of bundles (a `rumbench run
// --out`), whose bundles are taken in the order they ran. Every error is
// about the input: a missing directory, no bundle, an unreadable bundle.
func Load(paths []string) ([]*Bundle, error) {
	if len(paths) == 0 {
		return nil, errors.New("no directory given: name one or more run bundles or --out directories")
	}
	var out []*Bundle
	for _, p := range paths {
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such directory", p)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s is not a directory: name a run bundle (with run.json) or a run's --out directory", p)
		}
		if _, err := os.Stat(filepath.Join(p, results.RunFile)); err == nil {
			b, err := ReadBundle(p)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
			continue
		}
		subs, err := readSubBundles(p)
		if err != nil {
			return nil, err
		}
		if len(subs) == 0 {
			return nil, fmt.Errorf("%s holds no run bundle (no run.json in it or in any directory below it; symbolic links are not followed)", p)
		}
		out = append(out, subs...)
	}
	return out, nil
}

// readSubBundles reads every bundle under dir, at any depth (a sweep's
// cells, a directory of runs' --out directories), ordered by start time so
// that a run's engines keep the order they ran in. It does not follow
// symbolic links below dir (no loops, nothing outside it) and does not look
// inside a bundle (its steps/ are not bundles).
func readSubBundles(dir string) ([]*Bundle, error) {
	var out []*Bundle
	// The directory named is entered even when it is a symbolic link
	// (a trailing separator makes WalkDir resolve it); links below it are
	// not followed.
	root := dir + string(filepath.Separator)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return fmt.Errorf("read %s: %w", dir, err)
			}
			return nil // an unreadable corner is not a bundle
		}
		if !d.IsDir() || path == root {
			return nil
		}
		if _, err := os.Stat(filepath.Join(path, results.RunFile)); err != nil {
			return nil
		}
		b, err := ReadBundle(path)
		if err != nil {
			return err
		}
		out = append(out, b)
		return filepath.SkipDir
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		ti, tj := out[i].Run.StartedAt, out[j].Run.StartedAt
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return out[i].Dir < out[j].Dir
	})
	return out, nil
}

// Bundle is a results bundle plus the step fields the report reads
// generically (metrics, stalls, query-step fields), so that bundles written
// before or after those fields existed read the same way.
type Bundle struct {
	*results.Bundle
	// Raw holds each step's JSON object, by step name.
	Raw map[string]map[string]any
}

// ReadBundle reads one bundle directory.
func ReadBundle(dir string) (*Bundle, error) {
	b, err := results.Read(dir)
	if err != nil {
		return nil, err
	}
	return WrapBundle(b)
}

// WrapBundle adds the generic step fields to a bundle already read.
func WrapBundle(b *results.Bundle) (*Bundle, error) {
	out := &Bundle{Bundle: b, Raw: map[string]map[string]any{}}
	entries, err := os.ReadDir(filepath.Join(b.Dir, results.StepsDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read steps of %s: %w", b.Dir, err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(b.Dir, results.StepsDir, e.Name())
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read step: %w", err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		name, _ := m["step"].(string)
		if name == "" {
			name = strings.TrimSuffix(e.Name(), ".json")
		}
		out.Raw[name] = m
	}
	return out, nil
}

// LoadGroups reads the runs named by paths as Load does, except that a
// repeated run's directory (rep-1, rep-2, ... inside) gives one run per
// engine made of its repetitions, in the order of the first repetition.
func LoadGroups(paths []string) ([][]*Bundle, error) {
	var out [][]*Bundle
	for _, p := range paths {
		reps := results.RepDirs(p)
		if len(reps) == 0 {
			bs, err := Load([]string{p})
			if err != nil {
				return nil, err
			}
			for _, b := range bs {
				out = append(out, []*Bundle{b})
			}
			continue
		}
		var order []string
		byName := map[string][]*Bundle{}
		for _, rd := range reps {
			bs, err := readSubBundles(rd)
			if err != nil {
				return nil, err
			}
			for _, b := range bs {
				name := filepath.Base(b.Dir)
				if byName[name] == nil {
					order = append(order, name)
				}
				byName[name] = append(byName[name], b)
			}
		}
		if len(order) == 0 {
			return nil, fmt.Errorf("%s holds no run bundle in its repetitions (%s...)", p, filepath.Base(reps[0]))
		}
		for _, name := range order {
			out = append(out, byName[name])
		}
	}
	return out, nil
}
