package enginetest

import (
	"strings"
	"testing"

	"rumbench/internal/engine"
	"rumbench/internal/model"
)

// ConfigCase is one configuration an engine's option validation must take
// or refuse: Want is "" when it is valid, else a word the error must name.
type ConfigCase struct {
	Engine string
	Config model.Config
	Want   string
}

// CheckConfigs checks that each engine implements model.ConfigValidator
// and that engine.CheckConfig (run before any engine of a run starts, so
// bad settings are refused without opening anything) takes the valid
// configurations and refuses the others with an error naming what is wrong.
// Every engine package's validation test is a list of cases for it.
func CheckConfigs(t *testing.T, cases []ConfigCase) {
	t.Helper()
	for _, c := range cases {
		d, err := engine.Lookup(c.Engine)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := d.(model.ConfigValidator); !ok {
			t.Fatalf("%s does not implement model.ConfigValidator", c.Engine)
		}
		_, err = engine.CheckConfig(d, c.Config)
		switch {
		case c.Want == "" && err != nil:
			t.Errorf("%s %+v: %v", c.Engine, c.Config, err)
		case c.Want != "" && (err == nil || !strings.Contains(err.Error(), c.Want)):
			t.Errorf("%s %+v: error %v, want one mentioning %q", c.Engine, c.Config, err, c.Want)
		}
	}
}
