package units

import (
	"math"
	"testing"
)

func TestNum(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"},
		{100, "100"}, {99.95, "100.0"}, {12345.6, "12346"}, {-250.4, "-250"},
		{10, "10.0"}, {12.34, "12.3"}, {-12.34, "-12.3"},
		{1, "1.00"}, {1.234, "1.23"}, {9.999, "10.00"},
		{0.5, "0.500"}, {0.001, "0.001"}, {0.0123, "0.012"},
		{0.000999, "0.001"}, {0.00012345, "0.00012"}, {-0.00012345, "-0.00012"},
		{math.NaN(), "NaN"}, {math.Inf(1), "+Inf"}, {math.Inf(-1), "-Inf"},
	} {
		if got := Num(tc.v); got != tc.want {
			t.Errorf("Num(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestRatios(t *testing.T) {
	for v, want := range map[float64]string{0: "0.00", 1: "1.00", 0.125: "0.12", 0.135: "0.14", 99.994: "99.99", 100: "100", -150.5: "-150", 1234.5: "1234"} {
		if got := Ratio(v); got != want {
			t.Errorf("Ratio(%g) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[float64]string{0: "0.00", 0.05: "0.05", 0.0123: "0.012", -0.0456: "-0.046", 0.1: "0.10", 2.5: "2.50", 250: "250"} {
		if got := WideRatio(v); got != want {
			t.Errorf("WideRatio(%g) = %q, want %q", v, got, want)
		}
	}
	for _, tc := range []struct {
		a, b float64
		want string
	}{{2.1, 1, "2.10×"}, {1, 2, "1.00×"}, {15, 1, "15.0×"}, {250, 2, "125×"}, {1, 0, "∞×"}, {1, -1, "∞×"}} {
		if got := Times(tc.a, tc.b); got != tc.want {
			t.Errorf("Times(%g, %g) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestEng(t *testing.T) {
	for v, want := range map[float64]string{
		2500000: "2.5M", 2_000_000_000: "2G", 1500: "1.5k", 999: "999", 0.25: "0.25", 0: "0",
		1_234_567: "1.23M", -45000: "-45k", 100_000: "100k", 0.001: "0.001", 12.345: "12.3",
		3e12: "3T",
		// At a unit switch the three digits round up within the smaller unit.
		999_999: "1000k",
	} {
		if got := Eng(v); got != want {
			t.Errorf("Eng(%g) = %q, want %q", v, got, want)
		}
	}
	if got := Eng(math.NaN()); got != "NaN" {
		t.Errorf("Eng(NaN) = %q", got)
	}
	if got := Eng(math.Inf(1)); got != "+Inf" {
		t.Errorf("Eng(+Inf) = %q", got)
	}
}

func TestSizes(t *testing.T) {
	for n, want := range map[int64]string{
		-1: "none", 0: "0B", 1023: "1023B", 1024: "1KB", 1536: "1.5KB", 256 << 20: "256MB",
		3 << 29: "1.5GB", 1<<30 - 1: "1024MB", 1<<20 + 5243: "1.01MB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0 B", 512: "512 B", 1024: "1 KiB", 1535: "1 KiB", 1536: "2 KiB", 3 << 19: "1.5 MiB", 5 << 29: "2.5 GiB"} {
		if got := IEC(n); got != want {
			t.Errorf("IEC(%d) = %q, want %q", n, got, want)
		}
	}
	if got := WholeMiB(256<<20, "MiB"); got != "256MiB" {
		t.Errorf("WholeMiB = %q", got)
	}
	if got := WholeMiB(3<<19, "MB"); got != "2MB" { // 1.5 rounds half to even in %.0f
		t.Errorf("WholeMiB(1.5 MiB) = %q, want 2MB", got)
	}
	for n, want := range map[int64]string{-1: Dash, 0: "0.000", 1_234_567_890: "1.235", 500_000: "0.001", 499_999: "0.000"} {
		if got := GB(n); got != want {
			t.Errorf("GB(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestTimes(t *testing.T) {
	for s, want := range map[float64]string{0: "0ms", 0.25: "250ms", 0.9996: "1000ms", 1: "1.0s", 2.25: "2.2s", 99.9: "99.9s", 100: "1m40s", 185: "3m05s", 3599: "59m59s", 3600: "1h00m", 3725: "1h02m"} {
		if got := Secs(s); got != want {
			t.Errorf("Secs(%g) = %q, want %q", s, got, want)
		}
	}
	for us, want := range map[int64]string{0: "0µs", 999: "999µs", 1000: "1.0ms", 12_549: "12.5ms", 999_999: "1000.0ms", 1_000_000: "1.00s", 1_255_000: "1.25s"} {
		if got := Micros(us); got != want {
			t.Errorf("Micros(%d) = %q, want %q", us, got, want)
		}
	}
	if got := MillisOfMicros(12_345); got != "12.35" {
		t.Errorf("MillisOfMicros = %q", got)
	}
	// With intervals under a second, neighbouring live lines never show
	// the same step time (old code printed "11s" five times at 200 ms).
	prev := ""
	for i := 50; i < 80; i++ {
		got := Elapsed(float64(i)*0.2, 0.2)
		if got == prev {
			t.Fatalf("two lines 200 ms apart both show %q", got)
		}
		prev = got
	}
	for _, tc := range []struct {
		s, nominal float64
		want       string
	}{{61, 1, "    61s"}, {9.95, 1, "   9.9s"}, {12.5, 0.2, "  12.5s"}, {10000, 0.2, " 10000s"}} {
		if got := Elapsed(tc.s, tc.nominal); got != tc.want {
			t.Errorf("Elapsed(%g, %g) = %q, want %q", tc.s, tc.nominal, got, tc.want)
		}
	}
}

func TestPlainAndExport(t *testing.T) {
	for v, want := range map[float64]string{99: "99", 99.9: "99.9", 1.2e6: "1200000", -0.5: "-0.5", 0: "0"} {
		if got := Plain(v); got != want {
			t.Errorf("Plain(%g) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[float64]string{0.1 + 0.2: "0.3", 1234567.891: "1234567.891", 1e21: "1e+21", 12345678901.5: "1.23456789e+10", -2.5e-7: "-2.5e-07"} {
		if got := Export(v); got != want {
			t.Errorf("Export(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestFixed(t *testing.T) {
	if got := Fixed(2.5, 0); got != "2" { // as %.0f: halves to even
		t.Errorf("Fixed(2.5, 0) = %q", got)
	}
	if got := Decimals(3)(1.0005); got != "1.000" && got != "1.001" {
		t.Errorf("Decimals(3) = %q", got)
	}
	x := 1.5
	if FixedOr(&x, 1, "-") != "1.5" || FixedOr(nil, 1, "-") != "-" {
		t.Error("FixedOr")
	}
	if OrDash("") != Dash || OrDash("x") != "x" {
		t.Error("OrDash")
	}
}

func TestRounding(t *testing.T) {
	for _, tc := range []struct {
		v         float64
		d         int
		round, up float64
	}{
		{1.25, 1, 1.3, 1.3}, {-1.25, 1, -1.3, -1.3}, {2.5, 0, 3, 3}, {-2.5, 0, -3, -3},
		{0.0005, 3, 0.001, 0.001}, {1.23449, 3, 1.234, 1.234}, {0, 2, 0, 0},
		{123.456, 0, 123, 123},
		// A hair under a half: Round keeps it below, adding ½ carries it.
		{0.49999999999999994, 0, 0, 1},
	} {
		if got := Round(tc.v, tc.d); got != tc.round {
			t.Errorf("Round(%v, %d) = %v, want %v", tc.v, tc.d, got, tc.round)
		}
		if got := RoundHalfUp(tc.v, tc.d); got != tc.up {
			t.Errorf("RoundHalfUp(%v, %d) = %v, want %v", tc.v, tc.d, got, tc.up)
		}
	}
	if !math.IsNaN(Round(math.NaN(), 1)) || !math.IsInf(Round(math.Inf(1), 1), 1) {
		t.Error("Round of NaN or Inf is not itself")
	}
	for v, want := range map[float64]float64{0: 0, 1234.56: 1235, 1.23456: 1.235, -0.00123456: -0.001235, 12.3456: 12.35, 0.000123456: 0.0001235, -2.34567: -2.346,
		// Whole numbers keep every digit: rounded to units, not to four.
		123456.7: 123457, 98765.4: 98765} {
		if got := RoundSig(v); got != want {
			t.Errorf("RoundSig(%v) = %v, want %v", v, got, want)
		}
	}
	if !math.IsNaN(RoundSig(math.NaN())) {
		t.Error("RoundSig(NaN)")
	}
}
