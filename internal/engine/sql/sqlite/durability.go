package sqlite

import "rumbench/internal/model"

var _ model.Durability = Driver{}

// CrashOptions implements model.Durability: synchronous=full syncs the log
// at each commit; synchronous=off does not.
func (Driver) CrashOptions(durable bool) (map[string]string, bool) {
	if durable {
		return map[string]string{"synchronous": "full"}, true
	}
	return map[string]string{"synchronous": "off"}, true
}
