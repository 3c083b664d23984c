package figure

import "testing"

func TestPrecise(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 1234.5: "1234", -98765.4: "-98765", 999.94: "999.9", 12.345: "12.35",
		0.0012345: "0.001234", 1e-7: "1e-07",
	} {
		if got := Precise(v); got != want {
			t.Errorf("Precise(%v) = %q, want %q", v, got, want)
		}
	}
}
