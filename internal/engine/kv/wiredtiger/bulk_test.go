//go:build wiredtiger

package wiredtiger

import (
	"testing"

	"rumbench/internal/enginetest/kvtest"
)

// TestBulkBuild: bulk cursors build the same indexes as the online copy.
func TestBulkBuild(t *testing.T) {
	kvtest.BulkBuild(t, open, nil)
}
