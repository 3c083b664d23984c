package bbolt

import (
	"testing"

	"rumbench/internal/enginetest/kvtest"
)

// TestBulkBuild: the sequential full-page fill builds the same indexes as
// the online copy.
func TestBulkBuild(t *testing.T) {
	kvtest.BulkBuild(t, open, nil)
}
