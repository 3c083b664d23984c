// Package flagnum gives numeric command-line flags readable errors and
// lets integer flags take a power-of-ten form (1e6).
package flagnum

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// Integer flags (--rows, --clients, ...) take digits, as pflag parses them,
// and also a power-of-ten form such as 1e6 or 2.5e5 when it is a whole
// number: sizes are written that way, and a leaked strconv error said
// nothing useful. Suffixes such as 1M are not taken: for byte-sized flags
// (--pad-max) they would read as 1000000 or as 1048576 alike.

// numValue wraps a numeric flag's value with a readable error and, for
// integers, the 1e6 form.
type numValue struct {
	pflag.Value
	integer bool
}

func (v *numValue) Set(s string) error {
	err := v.Value.Set(s)
	if err == nil {
		return nil
	}
	var ne *strconv.NumError
	if !errors.As(err, &ne) {
		return err
	}
	if v.integer {
		if whole, ok := powerOfTen(s); ok {
			err := v.Value.Set(whole)
			if err == nil {
				return nil
			}
			errors.As(err, &ne)
		}
		if errors.Is(ne.Err, strconv.ErrRange) {
			return errors.New("out of range for this setting")
		}
		return errors.New("not a whole number: give digits (1000000) or a power-of-ten form (1e6)")
	}
	if errors.Is(ne.Err, strconv.ErrRange) {
		return errors.New("out of range")
	}
	return errors.New("not a number: give digits such as 10 or 0.5")
}

// powerOfTen turns "1e6" or "2.5E5" into the digits of the whole number it
// names; ok is false for anything else (1.5, 1e-3, plain digits).
func powerOfTen(s string) (string, bool) {
	if !strings.ContainsAny(s, "eE") {
		return "", false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
		return "", false
	}
	return strconv.FormatFloat(f, 'f', 0, 64), true
}

// Wrap gives every numeric flag of fs the readable errors of numValue.
// Types and defaults, hence the help, stay.
func Wrap(fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		switch f.Value.Type() {
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
			f.Value = &numValue{Value: f.Value, integer: true}
		case "float32", "float64":
			f.Value = &numValue{Value: f.Value}
		}
	})
}
