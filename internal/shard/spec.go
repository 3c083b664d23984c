// Package shard lets several rumbench processes (on one host or many) run
// one run's clients against one server (--shard i/N): the shard's place in
// the run (Spec), and a barrier through the server under test that starts
// every step on all shards at one agreed time (Barrier).
package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// EnvIndex is the variable a Kubernetes Indexed Job sets to the pod's index:
// "--shard /N" takes the shard's index from it.
const EnvIndex = "JOB_COMPLETION_INDEX"

// MaxShards bounds N: every shard holds a connection and a heartbeat on
// the server.
const MaxShards = 1024

// Spec is shard Index of Count (0 <= Index < Count).
type Spec struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// String is the flag's form, "i/N".
func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Parse reads --shard: "i/N", or "/N" with i from $JOB_COMPLETION_INDEX
// (getenv looks it up). Errors are one line naming the fix.
func Parse(v string, getenv func(string) string) (Spec, error) {
	const want = "want INDEX/COUNT with 0 <= INDEX < COUNT, e.g. --shard 2/3, or --shard /3 to take INDEX from $" + EnvIndex
	idx, cnt, ok := strings.Cut(strings.TrimSpace(v), "/")
	if !ok {
		return Spec{}, fmt.Errorf("--shard %q: %s", v, want)
	}
	n, err := strconv.Atoi(cnt)
	if err != nil {
		return Spec{}, fmt.Errorf("--shard %q: COUNT %q is not a number: %s", v, cnt, want)
	}
	if n < 1 || n > MaxShards {
		return Spec{}, fmt.Errorf("--shard %q: COUNT must be between 1 and %d: %s", v, MaxShards, want)
	}
	if idx == "" {
		idx = getenv(EnvIndex)
		if idx == "" {
			return Spec{}, fmt.Errorf("--shard %q gives no INDEX and $%s is not set: give --shard INDEX/%d", v, EnvIndex, n)
		}
	}
	i, err := strconv.Atoi(idx)
	if err != nil {
		return Spec{}, fmt.Errorf("--shard %q: INDEX %q is not a number: %s", v, idx, want)
	}
	if i < 0 || i >= n {
		return Spec{}, fmt.Errorf("--shard %q: INDEX %d is out of range: the shards of a %d-shard run are 0 to %d", v, i, n, n-1)
	}
	return Spec{Index: i, Count: n}, nil
}

// RunID names a sharded run in the barrier table: a hash of what every
// shard of the run is given alike (its arguments without --shard and
// --out), so the shards agree on it without talking.
func RunID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
