package pebble

import (
	"context"
	"maps"
	"strconv"
	"strings"

	pdb "github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"

	"rumbench/internal/engine"
	"rumbench/internal/model"
)

var _ model.ConfigDiffer = (*DB)(nil)

// ConfigDiff implements model.ConfigDiffer: the options Pebble was opened
// with, read back from its pebble.Options and block cache (the kv layer's
// own options as it recorded them), against the option table's defaults.
func (d *DB) ConfigDiff(context.Context) (*model.ConfigDiff, error) {
	eff := maps.Clone(d.Info().Settings)
	maps.Copy(eff, d.st.effective())
	return engine.OptionDiff(eff, Driver{}.Options(), "pebble.Options the store was opened with, against rumbench's pebble option defaults"), nil
}

// effective reads the engine options back from what the store runs with.
func (s *store) effective() map[string]string {
	o := s.opts
	_, maxComp := o.CompactionConcurrencyRange()
	bloomBits := 0
	if bp, ok := o.Levels[0].FilterPolicy.(bloom.FilterPolicy); ok {
		bloomBits = int(bp)
	}
	comp := strings.ToLower(o.Levels[0].Compression().Name)
	if comp == "nocompression" {
		comp = "none"
	}
	return map[string]string{
		"cache_size":                 strconv.FormatInt(s.cache.MaxSize(), 10),
		"memtable_size":              strconv.FormatUint(o.MemTableSize, 10),
		"sync":                       strconv.FormatBool(s.wo == pdb.Sync),
		"compression":                comp,
		"l0_compaction_threshold":    strconv.Itoa(o.L0CompactionThreshold),
		"max_concurrent_compactions": strconv.Itoa(maxComp),
		"bloom_bits_per_key":         strconv.Itoa(bloomBits),
	}
}
