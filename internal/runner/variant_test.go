package runner

import (
	"strings"
	"testing"

	_ "rumbench/internal/engine/null"
	"rumbench/internal/model"
)

// The runner opens a variant with its Options as plan resolved them: it
// neither scopes EngineOpts (the settings as given, checked only for keys
// no variant takes) nor filters the variant's own.
func TestVariantOptionsUsedAsGiven(t *testing.T) {
	o := &Options{Variants: []model.Variant{{Label: "a", Engine: "null", Options: map[string]string{"bogus": "1"}}}, Out: t.TempDir()}
	if err := CheckEngines(o); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("a variant's own setting the engine does not take: %v, want it refused", err)
	}
	o = &Options{Variants: []model.Variant{{Label: "a", Engine: "null"}}, EngineOpts: map[string]string{"a.bogus": "1"}, Out: t.TempDir()}
	if err := CheckEngines(o); err != nil {
		t.Errorf("a label-scoped EngineOpts setting is not the variant's unless plan gave it: %v", err)
	}
}
