package launch

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// IndexEnv is the variable Kubernetes sets in each pod of an Indexed Job:
// the pod's completion index, 0 to completions-1.
const IndexEnv = "JOB_COMPLETION_INDEX"

// FromEnv is the flag value that means "take the index from IndexEnv".
const FromEnv = "env"

// CompletionIndex resolves an index flag (name is the flag, for errors):
// a number, or FromEnv for the pod's IndexEnv. It must be below n.
func CompletionIndex(name, value string, n int) (int, error) {
	v, what := strings.TrimSpace(value), "--"+name
	if v == FromEnv {
		env, ok := os.LookupEnv(IndexEnv)
		if !ok {
			return 0, fmt.Errorf("--%s %s: %s is not set (Kubernetes sets it in an Indexed Job's pods); give the index itself, e.g. --%s 0", name, FromEnv, IndexEnv, name)
		}
		v, what = strings.TrimSpace(env), IndexEnv
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return 0, fmt.Errorf("%s %q: want an index from 0 to %d, or --%s %s to read %s", what, v, n-1, name, FromEnv, IndexEnv)
	}
	if i >= n {
		return 0, fmt.Errorf("%s %d is out of range: there are %d, indexed 0 to %d", what, i, n, n-1)
	}
	return i, nil
}
