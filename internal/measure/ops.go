package measure

import (
	"fmt"
	"strings"
)

// Op indexes one operation type of a workload's operation set. Workers
// record by index so the hot path is an array access, not a map lookup.
type Op int

// Unit is what an operation's rate counts.
type Unit string

const (
	// UnitRows counts rows (inserts, deletes: IPS is rows/s).
	UnitRows Unit = "rows"
	// UnitOps counts successful operations (queries, updates, requests).
	UnitOps Unit = "ops"
)

// Role decides which per-operation denominators an operation feeds
// (docs/metrics.md): a step's main operation gets every per-operation
// figure; other write operations get KB written per unit.
type Role string

const (
	RoleWrite Role = "write"
	RoleRead  Role = "read"
	// RoleNone is for operations that are neither, e.g. an index build or
	// the response-time twin of a paced operation (latency only).
	RoleNone Role = "none"
)

// OpSpec describes one operation type a workload records.
type OpSpec struct {
	Name string `json:"name"`
	Unit Unit   `json:"unit"`
	Role Role   `json:"role"`
	// Short is the one-letter-ish denominator used in column headers
	// (CPU/i, wKB/q); RateLabel the rate's name (IPS, QPS). Both default
	// to the operation's name.
	Short     string `json:"short,omitempty"`
	RateLabel string `json:"rate_label,omitempty"`
	// ResponseOf names the paced operation this one is the response-time
	// twin of (latency from the intended start): it has no rate of its own.
	ResponseOf string `json:"response_of,omitempty"`
	// PartOf names the operation this one is a kind of (a request type of
	// LinkBench's request mix): it keeps its count, errors and latency, but
	// its rate is a random share of that operation's, so it is not judged
	// (no rate percentile, stalls or per-operation cost of its own; its
	// role is RoleNone).
	PartOf string `json:"part_of,omitempty"`
	Desc   string `json:"desc,omitempty"`
	// Note is printed under a step table headed by this operation, to
	// explain what its columns mean there.
	Note string `json:"note,omitempty"`
}

// PerLabel is the denominator label of per-operation figures ("i" in wKB/i).
func (s OpSpec) PerLabel() string {
	if s.Short != "" {
		return s.Short
	}
	return s.Name
}

// RateName is the label of the operation's rate ("IPS" or "update/s").
func (s OpSpec) RateName() string {
	if s.RateLabel != "" {
		return s.RateLabel
	}
	return s.Name + "/s"
}

// UnitLabel is the unit of the operation's rate as printed: "rows/s", or
// the operation's short name per second ("q/s").
func (s OpSpec) UnitLabel() string {
	if s.Unit == UnitRows {
		return "rows/s"
	}
	return s.PerLabel() + "/s"
}

// Judged reports whether the operation's rate is a throughput worth judging
// for stalls and per-operation figures (not a latency-only twin).
func (s OpSpec) Judged() bool { return s.ResponseOf == "" && s.PartOf == "" && s.Role != RoleNone }

// Ops is a workload's operation set; an Op is an index into it.
type Ops []OpSpec

// Lookup returns the Op of name.
func (o Ops) Lookup(name string) (Op, bool) {
	for i, s := range o {
		if s.Name == name {
			return Op(i), true
		}
	}
	return 0, false
}

// Must returns the Op of name and panics if the set lacks it: for a
// workload's own constant names, checked by its tests.
func (o Ops) Must(name string) Op {
	op, ok := o.Lookup(name)
	if !ok {
		panic(fmt.Sprintf("measure: operation %q is not declared", name))
	}
	return op
}

// Name returns op's name.
func (o Ops) Name(op Op) string { return o[op].Name }

// Validate checks names are unique, non-empty and lower-case identifiers
// (they are JSON keys and column labels), and units and roles are known.
func (o Ops) Validate() error {
	if len(o) == 0 {
		return fmt.Errorf("no operations declared")
	}
	seen := map[string]bool{}
	for _, s := range o {
		if s.Name == "" || strings.ToLower(s.Name) != s.Name || strings.ContainsAny(s.Name, " .,/") {
			return fmt.Errorf("operation name %q must be a non-empty lower-case identifier", s.Name)
		}
		if seen[s.Name] {
			return fmt.Errorf("operation %q is declared twice", s.Name)
		}
		seen[s.Name] = true
		if s.Unit != UnitRows && s.Unit != UnitOps {
			return fmt.Errorf("operation %q: unit must be rows or ops, got %q", s.Name, s.Unit)
		}
		switch s.Role {
		case RoleWrite, RoleRead, RoleNone:
		default:
			return fmt.Errorf("operation %q: role must be write, read or none, got %q", s.Name, s.Role)
		}
	}
	for _, s := range o {
		if s.ResponseOf != "" && !seen[s.ResponseOf] {
			return fmt.Errorf("operation %q is the response twin of undeclared %q", s.Name, s.ResponseOf)
		}
	}
	return nil
}
