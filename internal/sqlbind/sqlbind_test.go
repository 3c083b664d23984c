package sqlbind

import "testing"

func TestNumbered(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT 1":                               "SELECT 1",
		"INSERT INTO t (a, b) VALUES (?, ?)":     "INSERT INTO t (a, b) VALUES ($1, $2)",
		"UPDATE t SET a = ? WHERE b = ? AND c=?": "UPDATE t SET a = $1 WHERE b = $2 AND c=$3",
	} {
		if got := Numbered(in); got != want {
			t.Errorf("Numbered(%q) = %q, want %q", in, got, want)
		}
	}
}
