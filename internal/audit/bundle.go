package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Bundle is what the audit reads of one engine's results bundle
// (<out>/<engine>/): the engine and, in run order, its steps. Metrics stay
// raw JSON, so a field this build of rumbench does not write is told apart
// from a field it wrote as null.
type Bundle struct {
	Dir    string
	Engine string
	Kind   string // "embedded" or "server"
	Steps  []Step
}

// Step is one steps/<step>.json as the audit needs it.
type Step struct {
	Name     string                     `json:"step"`
	MainOp   string                     `json:"main_op"`
	Complete bool                       `json:"complete"`
	Started  time.Time                  `json:"started_at"`
	Seconds  float64                    `json:"seconds"`
	Ops      map[string]Op              `json:"ops"`
	Metrics  map[string]json.RawMessage `json:"metrics"`
}

// Op is one operation's totals in a step.
type Op struct {
	Unit   string `json:"unit"`
	Role   string `json:"role"`
	Count  int64  `json:"count"`
	Rows   int64  `json:"rows"`
	Errors int64  `json:"errors"`
}

// Done is the operation's count in its unit: rows, or successful
// operations (results.OpSummary.Done).
func (o Op) Done() int64 {
	if o.Unit == "ops" {
		return o.Count - o.Errors
	}
	return o.Rows
}

// ReadBundle reads run.json and the step files it lists.
func ReadBundle(dir string) (*Bundle, error) {
	var run struct {
		Engine struct {
			Name string `json:"name"`
			Kind string `json:"kind"`
		} `json:"engine"`
		Steps []string `json:"steps"`
	}
	if err := readJSON(filepath.Join(dir, "run.json"), &run); err != nil {
		return nil, err
	}
	b := &Bundle{Dir: dir, Engine: run.Engine.Name, Kind: run.Engine.Kind}
	for _, name := range run.Steps {
		var s Step
		err := readJSON(filepath.Join(dir, "steps", name+".json"), &s)
		if os.IsNotExist(err) {
			continue // the run ended before it
		}
		if err != nil {
			return nil, err
		}
		b.Steps = append(b.Steps, s)
	}
	return b, nil
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Field is a metric as the bundle has it.
type Field struct {
	V float64
	// State: "ok", "null" (written as null: not measured) or "missing"
	// (not written: not in this build of rumbench).
	State string
}

func field(raw map[string]json.RawMessage, key string) Field {
	r, ok := raw[key]
	if !ok {
		return Field{State: "missing"}
	}
	var v *float64
	if err := json.Unmarshal(r, &v); err != nil || v == nil {
		return Field{State: "null"}
	}
	return Field{V: *v, State: "ok"}
}

// Metric is metrics.<key> of the step.
func (s *Step) Metric(key string) Field { return field(s.Metrics, key) }

// PerOp is metrics.per_op.<main op>.<key> of the step.
func (s *Step) PerOp(key string) Field {
	var per map[string]map[string]json.RawMessage
	raw, ok := s.Metrics["per_op"]
	if !ok || json.Unmarshal(raw, &per) != nil || per[s.MainOp] == nil {
		return Field{State: "missing"}
	}
	return field(per[s.MainOp], key)
}

// Window is the step's measured span: its start to its last sample
// (metrics.noise_span_s: the clock and the end-of-step flush), or its
// seconds when the bundle has no span.
func (s *Step) Window() Window {
	span := s.Seconds
	if f := s.Metric("noise_span_s"); f.State == "ok" && f.V > 0 {
		span = f.V
	}
	return Window{Name: s.Name, From: s.Started, To: s.Started.Add(time.Duration(span * float64(time.Second)))}
}

// Denominator is the main operation's count when its figures are per
// operation (a read or write role), else 0: the step is compared in
// totals (an index build, maintenance).
func (s *Step) Denominator() int64 {
	op, ok := s.Ops[s.MainOp]
	if !ok || op.Role == "none" || op.Role == "" {
		return 0
	}
	return op.Done()
}
