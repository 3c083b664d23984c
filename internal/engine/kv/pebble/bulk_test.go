package pebble

import (
	"testing"

	"rumbench/internal/enginetest/kvtest"
)

// TestBulkBuild: SST ingestion builds the same indexes as the online copy.
func TestBulkBuild(t *testing.T) {
	kvtest.BulkBuild(t, open, map[string]string{"memtable_size": "1MB", "cache_size": "8MB"})
}
