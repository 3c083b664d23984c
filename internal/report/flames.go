package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/pprof/profile"

	"rumbench/internal/flame"
)

// flameCharts draws a flame graph of each profile the step's runs recorded
// (--profile): the client's Go profile and perf's stacks of the measured
// processes. A profile that cannot be read is left out with a note.
func (r *Report) flameCharts(sr *StepReport) (out []Chart, notes []string) {
	for _, row := range sr.Rows {
		if row.B == nil {
			continue
		}
		st := row.B.Steps[sr.Name]
		if st == nil || st.Profiles == nil {
			continue
		}
		for _, f := range []struct{ path, what string }{{st.Profiles.Server, "server"}, {st.Profiles.Client, "client"}} {
			if f.path == "" {
				continue
			}
			title := fmt.Sprintf("%s: where %s's %s CPU went (%s)", sr.Name, runName(row.Run), f.what, f.path)
			svg, err := flameSVG(filepath.Join(row.B.Dir, f.path), title)
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s: %s profile not drawn: %v", runName(row.Run), f.what, err))
				continue
			}
			out = append(out, Chart{Title: title, SVG: svg})
		}
	}
	return out, notes
}

func flameSVG(path, title string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	p, err := profile.ParseData(b)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	var out bytes.Buffer
	if err := flame.Write(&out, p, flame.Options{Title: title}); err != nil {
		return "", err
	}
	return out.String(), nil
}
