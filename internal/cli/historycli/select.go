package historycli

import (
	"context"
	"fmt"
	"io"
	"time"

	"rumbench/internal/history"
	"rumbench/internal/runner"
)

// Selection is what the flags of a `rumbench history` subcommand select:
// the history (--history: Target) and the runs in it.
type Selection struct {
	Target                                          string
	Label, Engine, Step, Workload, HostClass, Since string
}

// Filter is the selection's filter; Since is read relative to now.
func (s *Selection) Filter(now time.Time) (history.Filter, error) {
	out := history.Filter{Label: s.Label, Engine: s.Engine, Step: s.Step, Workload: s.Workload, HostClass: s.HostClass}
	if s.Since == "" {
		return out, nil
	}
	since, err := history.ParseSince(s.Since, now)
	if err != nil {
		return out, &runner.BadInputError{Err: err}
	}
	out.Since = since
	return out, nil
}

// series reads the series selected; where names the store for messages.
func (s *Selection) series(ctx context.Context) (ss []*history.Series, where string, err error) {
	flt, err := s.Filter(time.Now())
	if err != nil {
		return nil, "", err
	}
	return Series(ctx, s.Target, flt)
}

// Detector are the change-point detector's settings as the flags give
// them.
type Detector struct {
	MinEffect  string
	Alpha      float64
	MinSegment int
}

// options checks the settings.
func (d *Detector) options() (history.DetectOptions, error) {
	o, err := history.NewDetectOptions(d.MinEffect, d.Alpha, d.MinSegment)
	if err != nil {
		return o, &runner.BadInputError{Err: err}
	}
	return o, nil
}

// ListRuns prints the runs selected (`history list`).
func (s *Selection) ListRuns(ctx context.Context, w io.Writer) error {
	flt, err := s.Filter(time.Now())
	if err != nil {
		return err
	}
	return List(ctx, s.Target, flt, w)
}

// ShowSeries prints the series selected with their change points, and
// with htmlPath writes their charts (`history show`).
func (s *Selection) ShowSeries(ctx context.Context, w io.Writer, figures []string, d *Detector, htmlPath string) error {
	o, err := d.options()
	if err != nil {
		return err
	}
	ss, where, err := s.series(ctx)
	if err != nil {
		return err
	}
	return Show(w, ss, where, Figures(figures), o, htmlPath)
}

// ExportSeries writes the series selected in format (otava, the only
// one) to out, else w, and with config Otava's configuration of it
// (`history export`).
func (s *Selection) ExportSeries(ctx context.Context, w io.Writer, format string, figures []string, out, config string) error {
	if format != "otava" {
		return &runner.BadInputError{Err: fmt.Errorf("--format %q: the export format is otava (Apache Otava's CSV)", format)}
	}
	if config != "" && out == "" {
		return &runner.BadInputError{Err: fmt.Errorf("--otava-config names the CSV file: give --out FILE too")}
	}
	ss, _, err := s.series(ctx)
	if err != nil {
		return err
	}
	return Export(w, ss, Figures(figures), out, config)
}

// CheckSeries judges the series selected; a *RegressionError when a
// series' newest runs hold a regression (`history check`).
func (s *Selection) CheckSeries(ctx context.Context, w io.Writer, figures []string, d *Detector) error {
	o, err := d.options()
	if err != nil {
		return err
	}
	ss, _, err := s.series(ctx)
	if err != nil {
		return err
	}
	return Check(w, ss, Figures(figures), o)
}

// CalibrateSeries prints the detector's false alarms on the A/A series
// selected, in the order they ran and over shuffles random orders
// (`history calibrate`).
func (s *Selection) CalibrateSeries(ctx context.Context, w io.Writer, figures []string, d *Detector, shuffles int) error {
	o, err := d.options()
	if err != nil {
		return err
	}
	if shuffles < 0 {
		return &runner.BadInputError{Err: fmt.Errorf("--shuffles %d must be 0 or more", shuffles)}
	}
	ss, _, err := s.series(ctx)
	if err != nil {
		return err
	}
	Calibration(w, history.Calibrate(ss, Figures(figures), o, shuffles), o, shuffles)
	return nil
}
