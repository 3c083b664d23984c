// Package workload defines what a workload gives the runner: an ordered list
// of named steps, each run against the table model under one interval clock.
// Workloads never import engine packages.
package workload

import (
	"context"
	"errors"

	"rumbench/internal/measure"
	"rumbench/internal/model"
)

// Workload is one benchmark (ibench, hotrow, ...) configured for a run.
type Workload interface {
	// Name is the workload's name as given to --workload.
	Name() string
	// Steps returns the steps to run, in order.
	Steps() []Step
	// Tables names the tables the workload uses.
	Tables() []string
	// Prepare readies the workload's state for db before the first step,
	// e.g. reading table bounds from an existing data dir.
	Prepare(ctx context.Context, db model.DB) error
}

// Step is one named, separately measured phase of a workload.
type Step struct {
	Name string
	Run  func(ctx context.Context, env *Env) error
}

// Env is what a step runs with.
type Env struct {
	DB model.DB
	// Clock is the step's interval clock; each worker takes its own Recorder.
	Clock *measure.Clock
	// Details are step-specific results, copied into the step summary.
	Details map[string]any
	// Logf prints a progress note (not an interval line).
	Logf func(format string, args ...any)
}

// Details keys through which a step reports the logical size of its data,
// the denominators of write and space amplification (docs/metrics.md).
// Values are int64 bytes, set by the step before it returns.
const (
	// DetailLogicalBytesInserted is the logical bytes of the rows the step
	// inserted (as the workload defines a row's logical size).
	DetailLogicalBytesInserted = "logical_bytes_inserted"
	// DetailLogicalLiveBytes is the logical bytes of the live rows at step
	// end.
	DetailLogicalLiveBytes = "logical_live_bytes"
)

// ErrNotPrepared is wrapped by Prepare when the data dir lacks what the
// chosen steps need (e.g. tables a load step creates): the user's input, not
// an engine failure.
var ErrNotPrepared = errors.New("data dir is not ready for these steps")
