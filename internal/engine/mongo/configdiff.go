package mongo

import (
	"context"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"rumbench/internal/model"
)

var _ model.ConfigDiffer = (*DB)(nil)

// ConfigDiff implements model.ConfigDiffer as far as MongoDB allows: the
// options the server was started with (getCmdLineOpts "parsed": the command
// line and the configuration file), as dotted keys (storage.engine,
// storage.wiredTiger.engineConfig.cacheSizeGB). MongoDB does not report its
// defaults, so Default is empty and an option given with its default value
// is listed too. Left out: the plumbing (net.*, the config file's path,
// storage.dbPath, systemLog.*, processManagement.*, security's key files).
func (d *DB) ConfigDiff(ctx context.Context) (*model.ConfigDiff, error) {
	var res bson.M
	if err := d.client.Database("admin").RunCommand(ctx, bson.D{{Key: "getCmdLineOpts", Value: 1}}).Decode(&res); err != nil {
		return nil, fmt.Errorf("mongodb: getCmdLineOpts: %w", err)
	}
	parsed, _ := res["parsed"].(bson.M)
	diff := &model.ConfigDiff{Source: "getCmdLineOpts parsed (the options the server was started with; MongoDB reports no defaults)", Settings: []model.SettingDiff{}}
	for k, v := range flattenOpts("", parsed) {
		if !mongoPlumbing(k) {
			diff.Settings = append(diff.Settings, model.SettingDiff{Key: k, Value: v, Origin: "command line or config file"})
		}
	}
	diff.SortSettings()
	return diff, nil
}

// flattenOpts turns nested option documents into dotted keys.
func flattenOpts(prefix string, m bson.M) map[string]string {
	out := map[string]string{}
	for k, val := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		switch v := val.(type) {
		case bson.M:
			for fk, fv := range flattenOpts(key, v) {
				out[fk] = fv
			}
		case bson.D:
			sub := bson.M{}
			for _, e := range v {
				sub[e.Key] = e.Value
			}
			for fk, fv := range flattenOpts(key, sub) {
				out[fk] = fv
			}
		default:
			out[key] = fmt.Sprint(v)
		}
	}
	return out
}

// mongoPlumbing reports whether an option locates or addresses the server
// rather than shapes its work.
func mongoPlumbing(key string) bool {
	for _, p := range []string{"net.", "systemLog.", "processManagement."} {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	switch key {
	case "config", "storage.dbPath", "security.keyFile", "security.clusterIpSourceAllowlist":
		return true
	}
	return false
}
