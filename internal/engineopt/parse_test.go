package engineopt

import (
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"0": 0, "1048576": 1 << 20, "64MB": 64 << 20, "64mib": 64 << 20, "64M": 64 << 20,
		"1GiB": 1 << 30, "1.5g": 3 << 29, " 2 KB ": 2048, "10b": 10, "1TB": 1 << 40,
	}
	for in, want := range good {
		if got, err := ParseSize("cache_size", in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1", "64XB", "1e30", "9999999999TB", "NaN"} {
		_, err := ParseSize("cache_size", in)
		if err == nil || !strings.Contains(err.Error(), "cache_size") {
			t.Errorf("ParseSize(%q): error %v; want one naming the option", in, err)
		}
	}
}

func TestParseOthers(t *testing.T) {
	if v, err := ParseBool("sync", "TRUE"); err != nil || !v {
		t.Errorf("ParseBool(TRUE) = %v, %v", v, err)
	}
	if v, err := ParseBool("sync", "off"); err != nil || v {
		t.Errorf("ParseBool(off) = %v, %v", v, err)
	}
	if _, err := ParseBool("sync", "2"); err == nil {
		t.Error("ParseBool(2): want an error")
	}
	if _, err := ParseInt("n", "11", 1, 10); err == nil || !strings.Contains(err.Error(), "from 1 to 10") {
		t.Errorf("ParseInt out of range: %v", err)
	}
	if _, err := ParseFloat("f", "NaN", 0, 1); err == nil {
		t.Error("ParseFloat(NaN): want an error")
	}
	if v, err := ParseChoice("c", "ZSTD", "none", "zstd"); err != nil || v != "zstd" {
		t.Errorf("ParseChoice(ZSTD) = %q, %v", v, err)
	}
	if _, err := ParseChoice("c", "lz4", "none", "zstd"); err == nil || !strings.Contains(err.Error(), "none, zstd") {
		t.Errorf("ParseChoice(lz4): %v", err)
	}
}
