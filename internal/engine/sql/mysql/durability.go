package mysql

import "rumbench/internal/model"

var _ model.Durability = Driver{}

// CrashOptions implements model.Durability: InnoDB and MyRocks are durable
// with the server's compiled defaults (innodb_flush_log_at_trx_commit=1,
// rocksdb_flush_log_at_trx_commit=1), so durable commits need no option;
// no engine option turns that off (it is a server setting).
func (Driver) CrashOptions(durable bool) (map[string]string, bool) {
	if durable {
		return map[string]string{}, true
	}
	return nil, false
}
