package kube

import "testing"

// A manifest would carry --dsn in plain text: every place a DSN can hold a
// password is found, and DSNs without one pass.
func TestDSNHasPassword(t *testing.T) {
	for dsn, want := range map[string]bool{
		"postgres://bench:s3cret@db/test":              true,
		"postgres://bench@db/test?password=hunter2":    true,
		"postgres://bench@db/test?sslpassword=x":       true,
		"postgresql://bench@db:5432/test?sslmode=off":  false,
		"root:pass@tcp(127.0.0.1:3306)/test":           true,
		"root@tcp(127.0.0.1:3306)/test":                false,
		"host=db user=bench password=p dbname=test":    true,
		"host=db user=bench PASSWORD=p":                true,
		"host=db user=bench dbname=test":               false,
		"mongodb://u:p@127.0.0.1:27017/?authSource=db": true,
		"": false,
	} {
		if got := DSNHasPassword(dsn); got != want {
			t.Errorf("DSNHasPassword(%q) = %v, want %v", dsn, got, want)
		}
	}
}
