package postgres

import "rumbench/internal/model"

var _ model.Durability = Driver{}

// CrashOptions implements model.Durability: synchronous_commit=on (with the
// server's default fsync=on) waits for the commit's WAL flush; off does not.
func (Driver) CrashOptions(durable bool) (map[string]string, bool) {
	if durable {
		return map[string]string{"synchronous_commit": "on"}, true
	}
	return map[string]string{"synchronous_commit": "off"}, true
}
