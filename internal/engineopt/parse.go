package engineopt

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Value parsers of the option kinds. Errors are one line naming the option
// and what it accepts.

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	// Binary multiples, as in database configuration files: 1MB = 1MiB.
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"tb", 1 << 40},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40},
	{"b", 1},
}

// ParseSize parses a byte size: plain bytes ("1048576") or a number with a
// binary unit ("64MB", "64MiB", "1.5g"; KB/MB/GB/TB are 1024-based).
func ParseSize(key, val string) (int64, error) {
	bad := fmt.Errorf("engine option %s=%q: want a byte size such as 1048576, 64MB or 1GiB", key, val)
	s := strings.ToLower(strings.TrimSpace(val))
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 || n > math.MaxInt64/mult {
			return 0, bad
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsNaN(f) || f*float64(mult) >= math.MaxInt64 {
		return 0, bad
	}
	return int64(f * float64(mult)), nil
}

// ParseBool parses true/false (also 1/0, yes/no, on/off).
func ParseBool(key, val string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(val)) {
	case "true", "1", "yes", "on":
		return true, nil
	case "false", "0", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("engine option %s=%q: want true or false", key, val)
}

// ParseInt parses an integer in [min, max].
func ParseInt(key, val string, min, max int64) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
	if err != nil || n < min || n > max {
		return 0, fmt.Errorf("engine option %s=%q: want an integer from %d to %d", key, val, min, max)
	}
	return n, nil
}

// ParseFloat parses a number in [min, max].
func ParseFloat(key, val string, min, max float64) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
	if err != nil || math.IsNaN(f) || f < min || f > max {
		return 0, fmt.Errorf("engine option %s=%q: want a number from %g to %g", key, val, min, max)
	}
	return f, nil
}

// ParseChoice checks that val is one of choices (case-insensitive) and
// returns it in lower case.
func ParseChoice(key, val string, choices ...string) (string, error) {
	v := strings.ToLower(strings.TrimSpace(val))
	for _, c := range choices {
		if v == c {
			return v, nil
		}
	}
	return "", fmt.Errorf("engine option %s=%q: want one of %s", key, val, strings.Join(choices, ", "))
}

// SameValue reports whether two spellings of a setting mean the same value.
func SameValue(a, b string) bool {
	a, b = strings.ToLower(strings.TrimSpace(a)), strings.ToLower(strings.TrimSpace(b))
	if a == b {
		return true
	}
	// Each reading applies when both spellings have it: numbers first (so
	// 0.9 is not a size of 0 bytes), then booleans (on = true = 1), then
	// sizes (64MB = 67108864).
	if x, err := strconv.ParseFloat(a, 64); err == nil {
		if y, err := strconv.ParseFloat(b, 64); err == nil {
			return x == y
		}
	}
	if x, err := ParseBool("", a); err == nil {
		if y, err := ParseBool("", b); err == nil {
			return x == y
		}
	}
	if x, err := ParseSize("", a); err == nil {
		if y, err := ParseSize("", b); err == nil {
			return x == y
		}
	}
	return false
}
