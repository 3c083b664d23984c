package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"rumbench/internal/model"
)

var _ model.ConfigDiffer = (*DB)(nil)

// ConfigDiff implements model.ConfigDiffer from pg_settings: every setting
// whose value (reset_val: the configuration file, the command line, ALTER
// SYSTEM or this client's connection, rumbench's session options included)
// differs from the compiled default (boot_val). Left out: values the server
// derives itself (source "override": wal_buffers from shared_buffers, the
// paths of a data directory), and the plumbing every run sets (port,
// addresses, paths, log file names, locale and formatting, the client's
// name and encoding): pgPlumbing.
func (d *DB) ConfigDiff(ctx context.Context) (*model.ConfigDiff, error) {
	rows, err := d.SQL().QueryContext(ctx, `SELECT name, reset_val, coalesce(boot_val, ''), coalesce(unit, ''), source
		FROM pg_settings
		WHERE source NOT IN ('default', 'override') AND reset_val IS DISTINCT FROM boot_val
		ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("postgres: read pg_settings: %w", err)
	}
	defer rows.Close()
	diff := &model.ConfigDiff{Source: "pg_settings (reset_val against boot_val)", Settings: []model.SettingDiff{}}
	for rows.Next() {
		var name, val, boot, unit, source string
		if err := rows.Scan(&name, &val, &boot, &unit, &source); err != nil {
			return nil, fmt.Errorf("postgres: read pg_settings: %w", err)
		}
		if pgPlumbing(name) {
			continue
		}
		diff.Settings = append(diff.Settings, model.SettingDiff{Key: name, Value: pgValue(val, unit), Default: pgValue(boot, unit), Origin: source})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: read pg_settings: %w", err)
	}
	diff.SortSettings()
	return diff, nil
}

// pgPlumbingNames are settings that locate or label a server rather than
// shape its work.
var pgPlumbingNames = map[string]bool{
	"port": true, "listen_addresses": true, "unix_socket_group": true, "unix_socket_permissions": true,
	"logging_collector": true, "log_filename": true, "log_line_prefix": true, "log_timezone": true,
	"cluster_name": true, "application_name": true, "client_encoding": true, "datestyle": true,
	"intervalstyle": true, "timezone": true, "extra_float_digits": true, "default_text_search_config": true,
}

// pgPlumbing reports whether a setting is left out of the diff: the names
// above, locale (lc_*) and every path (*_file, *_directory, *_directories).
func pgPlumbing(name string) bool {
	n := strings.ToLower(name)
	return pgPlumbingNames[n] || strings.HasPrefix(n, "lc_") ||
		strings.HasSuffix(n, "_file") || strings.HasSuffix(n, "_directory") || strings.HasSuffix(n, "_directories")
}

// pgValue spells a pg_settings value in its unit the way SHOW does: the
// largest unit that holds it exactly (shared_buffers 16384 × 8kB = 128MB,
// checkpoint_timeout 300 s = 5min).
func pgValue(v, unit string) string {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || unit == "" || n <= 0 {
		return v
	}
	type step struct {
		name string
		size int64
	}
	var base int64
	var steps []step
	if mem, ok := strings.CutSuffix(unit, "B"); ok {
		mult := map[string]int64{"": 1, "k": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
		num, prefix := mem, ""
		if i := strings.IndexAny(mem, "kMGT"); i >= 0 {
			num, prefix = mem[:i], mem[i:]
		}
		base = mult[prefix]
		if num != "" {
			k, err := strconv.ParseInt(num, 10, 64)
			if err != nil {
				return v + unit
			}
			base *= k
		}
		steps = []step{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}, {"B", 1}}
	} else {
		base = map[string]int64{"ms": 1, "s": 1000, "min": 60000, "h": 3600000, "d": 86400000}[unit]
		steps = []step{{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}, {"ms", 1}}
	}
	if base == 0 {
		return v + unit
	}
	total := n * base
	for _, s := range steps {
		if total%s.size == 0 {
			return strconv.FormatInt(total/s.size, 10) + s.name
		}
	}
	return v + unit
}
