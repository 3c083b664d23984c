package results

// Where a step's on-disk footprint (Metrics.DiskBytes) was measured.
const (
	// DiskDataDir: an embedded engine's data dir, allocated bytes.
	DiskDataDir = "data_dir"
	// DiskServerDataDir: a managed server's private data dir.
	DiskServerDataDir = "server_data_dir"
	// DiskDatabaseDir: only the directory of rumbench's database inside a
	// server's data dir it shares (a server rumbench does not manage, or a
	// sweep's managed server serving many cells; WAL/redo and shared files
	// excluded).
	DiskDatabaseDir = "database_dir"
	// LegacyDiskSource labels size_bytes of a bundle written before
	// disk_bytes: the data dir's allocation, which for a server was its
	// whole (possibly shared) data dir.
	LegacyDiskSource = "size_bytes (older bundle: the whole data dir)"
)

// SpaceAmpLive is SpaceAmpSource of space amplification computed from the
// engine's live size, the one rule for every engine.
const SpaceAmpLive = "live"

// upgradeSize moves size_bytes of a bundle written before disk_bytes to
// DiskBytes, labelled as what it was.
func upgradeSize(s *Step) {
	m := s.Metrics
	if m == nil {
		return
	}
	if why, ok := m.NullReasons["size_bytes"]; ok {
		delete(m.NullReasons, "size_bytes")
		if m.DiskBytes == nil {
			m.NullReasons["disk_bytes"] = why
		}
	}
	if m.LegacySizeBytes != nil && m.DiskBytes == nil {
		m.DiskBytes, m.DiskSource = m.LegacySizeBytes, LegacyDiskSource
	}
	m.LegacySizeBytes = nil
}
