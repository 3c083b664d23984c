//go:build rocksdb

package rocksdb

import (
	"testing"

	"rumbench/internal/enginetest/kvtest"
)

// TestBulkBuild: SstFileWriter and IngestExternalFile build the same
// indexes as the online copy, in the default column family and with a
// column family per index.
func TestBulkBuild(t *testing.T) {
	for _, perIndex := range []string{"false", "true"} {
		t.Run("column_family_per_index="+perIndex, func(t *testing.T) {
			kvtest.BulkBuild(t, open, map[string]string{"column_family_per_index": perIndex})
		})
	}
}
