package mysql

import (
	"context"
	stdsql "database/sql"
	"fmt"
	"strings"

	"rumbench/internal/model"
)

var _ model.ConfigDiffer = (*DB)(nil)

// ConfigDiff implements model.ConfigDiffer from MariaDB's
// information_schema.SYSTEM_VARIABLES: every global variable whose value
// (GLOBAL_VALUE) differs from the compiled default (DEFAULT_VALUE) and was
// set by a configuration file, the command line or SET GLOBAL
// (GLOBAL_VALUE_ORIGIN CONFIG, COMMAND-LINE, SQL). Left out: values the
// server sizes itself (origin AUTO: thread_cache_size, back_log, ...) and
// the plumbing every run sets (port, socket, pid file, paths, addresses,
// name resolution): mariaPlumbing. Added: the table options the engine
// creates its tables with (table_options), when given. MySQL has no such
// table; its diff is not read.
func (db *DB) ConfigDiff(ctx context.Context) (*model.ConfigDiff, error) {
	rows, err := db.SQL().QueryContext(ctx, `SELECT LOWER(VARIABLE_NAME), GLOBAL_VALUE, DEFAULT_VALUE, GLOBAL_VALUE_ORIGIN
		FROM information_schema.SYSTEM_VARIABLES
		WHERE GLOBAL_VALUE_ORIGIN NOT IN ('COMPILE-TIME', 'AUTO') AND NOT (GLOBAL_VALUE <=> DEFAULT_VALUE)`)
	if err != nil {
		return nil, fmt.Errorf("%s: read information_schema.SYSTEM_VARIABLES (MariaDB's; MySQL has none): %w", db.engine, err)
	}
	defer rows.Close()
	diff := &model.ConfigDiff{Source: "information_schema.SYSTEM_VARIABLES (GLOBAL_VALUE against DEFAULT_VALUE)", Settings: []model.SettingDiff{}}
	for rows.Next() {
		var name, origin string
		var val, def stdsql.NullString
		if err := rows.Scan(&name, &val, &def, &origin); err != nil {
			return nil, fmt.Errorf("%s: read information_schema.SYSTEM_VARIABLES: %w", db.engine, err)
		}
		if mariaPlumbing(name) {
			continue
		}
		diff.Settings = append(diff.Settings, model.SettingDiff{Key: name, Value: val.String, Default: def.String, Origin: origin})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: read information_schema.SYSTEM_VARIABLES: %w", db.engine, err)
	}
	// The tables' options (row_format, key_block_size) are the engine's,
	// not the server's: without them InnoDB 8k compressed and 8k
	// uncompressed would read back alike.
	if to := db.Info().Settings["table_options"]; to != "" {
		diff.Settings = append(diff.Settings, model.SettingDiff{Key: "table_options", Value: to, Origin: "CREATE TABLE (engine options row_format, key_block_size)"})
	}
	diff.SortSettings()
	return diff, nil
}

// mariaPlumbingNames are variables that locate or address a server rather
// than shape its work.
var mariaPlumbingNames = map[string]bool{
	"port": true, "socket": true, "datadir": true, "basedir": true, "tmpdir": true, "bind_address": true,
	"skip_name_resolve": true, "skip_networking": true, "report_port": true, "report_host": true,
	"hostname": true, "log_error": true, "secure_file_priv": true, "lc_messages": true,
	"log_bin_index": true, "relay_log_index": true,
}

// mariaPlumbing reports whether a variable is left out of the diff: the
// names above and every path (*_file, *_dir, *_path, *_directory,
// *_basename).
func mariaPlumbing(name string) bool {
	if mariaPlumbingNames[name] {
		return true
	}
	for _, suffix := range []string{"_file", "_dir", "_path", "_directory", "_basename"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}
