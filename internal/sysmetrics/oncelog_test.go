package sysmetrics

import (
	"bytes"
	"io"
	"testing"
)

// Lines of engines' child processes pass through the run's log: metrics
// messages the run said already are dropped, everything else is kept, also
// when a line arrives in pieces.
func TestOnceLogFilter(t *testing.T) {
	var out bytes.Buffer
	l := NewOnceLog(&out)
	l.Printf("WARNING: same device vda")
	child := l.Filter(&out)
	io.WriteString(child, "rumbench: metrics: WARNING: same device vda\nrumbench: metrics: cs unavail")
	io.WriteString(child, "able: x\nengine line\n")
	other := l.Filter(&out)
	io.WriteString(other, "rumbench: metrics: cs unavailable: x\nrumbench: metrics: WARNING: same device vda\n")
	want := "rumbench: metrics: WARNING: same device vda\nrumbench: metrics: cs unavailable: x\nengine line\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
