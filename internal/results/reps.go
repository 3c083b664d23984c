package results

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// RepPrefix names the repetition directories of a repeated run (--repeat):
// <out>/rep-1, <out>/rep-2, ..., each laid out as one run's --out.
const RepPrefix = "rep-"

// RepDir is repetition k's directory (1-based) under out.
func RepDir(out string, k int) string { return filepath.Join(out, fmt.Sprintf("%s%d", RepPrefix, k)) }

// RepDirs lists dir's repetition directories in repetition order; none
// when dir is not a repeated run.
func RepDirs(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	type rep struct {
		k   int
		dir string
	}
	var reps []rep
	for _, e := range entries {
		k, err := strconv.Atoi(strings.TrimPrefix(e.Name(), RepPrefix))
		if !strings.HasPrefix(e.Name(), RepPrefix) || err != nil || k < 1 {
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, e.Name())); err != nil || !st.IsDir() {
			continue
		}
		reps = append(reps, rep{k, filepath.Join(dir, e.Name())})
	}
	sort.Slice(reps, func(i, j int) bool { return reps[i].k < reps[j].k })
	out := make([]string, len(reps))
	for i, r := range reps {
		out[i] = r.dir
	}
	return out
}
