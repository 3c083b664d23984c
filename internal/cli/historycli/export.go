package historycli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"rumbench/internal/history"
	"rumbench/internal/runner"
)

// Export writes ss as Apache Otava's CSV of figs (every figure recorded
// when empty): to out, else to w; with config set, also an Otava
// configuration naming the CSV out (config needs out). A CSV that cannot be
// written whole is removed.
func Export(w io.Writer, ss []*history.Series, figs []string, out, config string) error {
	var file *os.File
	if out != "" {
		var err error
		if file, err = os.Create(out); err != nil {
			return &runner.BadInputError{Err: fmt.Errorf("--out: %w", err)}
		}
		defer file.Close()
		w = file
	}
	metrics, err := history.ExportOtava(w, ss, figs)
	if err != nil {
		if file != nil {
			file.Close()
			os.Remove(out)
		}
		return &runner.BadInputError{Err: err}
	}
	if file != nil {
		if err := file.Close(); err != nil {
			return fmt.Errorf("write %s: %w", out, err)
		}
	}
	if config != "" {
		k := ss[0].Key
		test := strings.NewReplacer(" ", "_", "/", "_").Replace(k.Label + "." + k.Workload)
		if err := os.WriteFile(config, []byte(history.OtavaConfig(test, out, metrics)), 0o644); err != nil {
			return &runner.BadInputError{Err: fmt.Errorf("--otava-config: %w", err)}
		}
	}
	return nil
}
