package enginelist

import (
	"strings"
	"testing"

	_ "rumbench/internal/engine/all"
)

func TestPrint(t *testing.T) {
	var b strings.Builder
	Print(&b, false)
	out := b.String()
	if !strings.HasPrefix(out, "engine  ") || !strings.Contains(out, "\npebble ") || !strings.HasSuffix(out, "\n`rumbench engines -v` lists each engine's settings.\n") {
		t.Errorf("engines:\n%s", out)
	}
	b.Reset()
	Print(&b, true)
	if out := b.String(); !strings.Contains(out, "\npebble settings (--engine-opt key=value):\n  cache: --cache-size sets ") || strings.Contains(out, "engines -v") {
		t.Errorf("engines -v:\n%s", out)
	}
}
