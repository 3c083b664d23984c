//go:build rocksdb

package rocksdb

import "rumbench/internal/model"

var _ model.Durability = Driver{}

// CrashOptions implements model.Durability: sync=true makes each commit
// durable before it returns; the default sync=false does not.
func (Driver) CrashOptions(durable bool) (map[string]string, bool) {
	if durable {
		return map[string]string{"sync": "true"}, true
	}
	return map[string]string{"sync": "false"}, true
}
