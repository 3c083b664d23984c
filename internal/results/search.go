package results

// The record of a rate search (l.max, LinkBench --request-rate max), kept
// in a search step's details under "search": internal/ratesearch writes
// it, the report draws it.

// SearchProbe is one run at a target rate and the rule's verdict on it.
type SearchProbe struct {
	Target   float64 `json:"target"`
	Achieved float64 `json:"achieved"`
	// P99Us is the probe's p99 response time (from the intended start), µs.
	P99Us int64 `json:"p99_us"`
	// Stalled counts the probe's stalled intervals.
	Stalled int     `json:"stalled"`
	Seconds float64 `json:"seconds"`
	Pass    bool    `json:"pass"`
	Why     string  `json:"why,omitempty"`
}

// Search is what a rate search found. Sustained is the highest target that
// passed (0: none did); Upper the lowest that failed (0: none did, so the
// bracket has no upper end and Sustained is a lower bound).
type Search struct {
	Sustained float64       `json:"sustained_rate"`
	Lower     float64       `json:"lower"`
	Upper     float64       `json:"upper"`
	Probes    []SearchProbe `json:"probes"`
	// Done says whether the bracket reached the precision; Why says why
	// not (probes or time ran out, nothing passed).
	Done bool   `json:"done"`
	Why  string `json:"why,omitempty"`
}
