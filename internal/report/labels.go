package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"rumbench/internal/engineopt"
	"rumbench/internal/model"
	"rumbench/internal/units"
)

// labelSkip are config keys that differ between runs without changing what
// was measured (where files went, which engines were listed together).
var labelSkip = map[string]bool{
	"engines": true, "engine_opts": true, "data_dir": true, "dsn_given": true,
	"database": true, "ibench.steps": true, "steps": true,
}

// settingSkip are engine settings that differ between two servers of the
// same settings by construction (where and when each started): naming a
// run by them says nothing about what it measured.
var settingSkip = map[string]bool{
	"host": true, "managed_dir": true, "managed_init_s": true, "managed_start_s": true,
	"managed_pid": true, "managed_port": true,
}

// labelRuns names each run by its variant's label (its engine's name
// unless the run gave it one) plus the settings and config that
// differ between the runs; repeated labels get their run number, and runs
// with an engine note (the null engine) are marked ‡.
func labelRuns(runs []*Run) {
	cfgs := make([]map[string]string, len(runs))
	for i, r := range runs {
		cfgs[i] = map[string]string{}
		m, _ := toMap(r.Bundle.Run.Config)
		flatten("", m, cfgs[i])
	}
	cfgDiff := differingKeys(cfgs, func(int, int) bool { return true })
	sets := make([]map[string]string, len(runs))
	for i, r := range runs {
		sets[i] = map[string]string{}
		es := r.Bundle.Run.Engine.Settings
		for k, v := range effectiveSettings(es) {
			// A managed server's address is its port, chosen free at
			// start: it differs between any two of them.
			if !settingSkip[k] && !(k == "address" && es["managed_port"] != "") {
				sets[i][k] = v
			}
		}
		sets[i]["version"] = r.Bundle.Run.Engine.Version
	}
	// Engine settings are compared only between runs of the same engine:
	// pebble's settings mean nothing next to sqlite's.
	sameEngine := func(i, j int) bool {
		return runs[i].Bundle.Run.Engine.Name == runs[j].Bundle.Run.Engine.Name
	}
	setDiff := differingKeys(sets, sameEngine)

	count := map[string]int{}
	for i, r := range runs {
		parts := []string{r.Bundle.Run.VariantLabel()}
		for _, k := range setDiff[i] {
			parts = append(parts, k+"="+units.OrDash(sets[i][k]))
		}
		for _, k := range cfgDiff[i] {
			parts = append(parts, strings.TrimPrefix(k, "ibench.")+"="+units.OrDash(cfgs[i][k]))
		}
		r.Label = strings.Join(parts, " ")
		count[r.Label]++
	}
	for _, r := range runs {
		if count[r.Label] > 1 {
			r.Label += fmt.Sprintf(" #%d", r.Num)
		}
		if r.Bundle.Run.Engine.Note != "" {
			r.Label += " ‡"
		}
		r.setShort()
	}
}

// setShort names the run for charts, narrow tables and the verdict.
func (r *Run) setShort() {
	r.Short = r.Label
	if textWidth(r.Label) > maxShortLabel {
		r.Short = r.Bundle.Run.VariantLabel()
		if r.Bundle.Run.Engine.Note != "" {
			r.Short += " ‡"
		}
	}
}

// maxShortLabel is the longest label charts, narrow tables and the verdict
// print whole; a longer one is named there by its variant's label and run
// number, and given whole in the runs table.
const maxShortLabel = 28

// serverOptPrefix marks a managed server's setting as given
// (model.ServerOptPrefix).
const serverOptPrefix = model.ServerOptPrefix

// effectiveSettings are an engine's recorded settings with each managed
// server setting once: the value the server reported (the one in effect),
// followed by the value asked for when the two differ in meaning
// ("16384 (asked 8k)"; 8k and 8192 are the same).
func effectiveSettings(es map[string]string) map[string]string {
	out := make(map[string]string, len(es))
	for k, v := range es {
		if !strings.HasPrefix(k, serverOptPrefix) {
			out[k] = v
		}
	}
	for k, mark := range askedMarks(es) {
		out[k] = units.OrDash(es[k]) + mark
	}
	return out
}

// askedMarks maps each managed server setting whose given value differs in
// meaning from the one the server reported to " (asked GIVEN)".
func askedMarks(es map[string]string) map[string]string {
	marks := map[string]string{}
	for k, given := range es {
		key, ok := strings.CutPrefix(k, serverOptPrefix)
		if ok && askedOther(given, es[key]) {
			marks[key] = " (asked " + given + ")"
		}
	}
	return marks
}

// askedOther reports whether a server runs a setting with another value
// than the one given, compared for what they mean (engineopt.SameValue: 8k =
// 8192, on = 1; and durations, 900s = 15min). A bare number given for a
// value the server reports with a unit is in the setting's own unit
// (PostgreSQL's shared_buffers=4096 is 4096 pages of 8kB, SHOW says 32MB),
// which run.json does not record: no difference is claimed.
func askedOther(given, running string) bool {
	if engineopt.SameValue(given, running) {
		return false
	}
	if g, ok := duration(given); ok {
		if r, ok := duration(running); ok {
			return g != r
		}
	}
	return !(isNumber(given) && hasUnit(running))
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil
}

// hasUnit reports whether s is a number followed by a unit ("32MB", "5min").
func hasUnit(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && s[0] >= '0' && s[0] <= '9' && !isNumber(s)
}

// duration reads a time setting as servers spell it (PostgreSQL's ms, s,
// min, h, d; also us and m): "15min", "900s".
func duration(s string) (time.Duration, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return 0, false
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	unit := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second,
		"m": time.Minute, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}[strings.TrimSpace(s[i:])]
	if err != nil || unit == 0 {
		return 0, false
	}
	return time.Duration(n * float64(unit)), true
}

// differingKeys returns, per map, the sorted keys whose value differs from
// that of some other map it is comparable with.
func differingKeys(ms []map[string]string, comparable func(i, j int) bool) [][]string {
	out := make([][]string, len(ms))
	for i := range ms {
		keys := map[string]bool{}
		for j := range ms {
			if i == j || !comparable(i, j) {
				continue
			}
			for k, v := range ms[i] {
				if w, ok := ms[j][k]; !ok || w != v {
					keys[k] = true
				}
			}
			for k := range ms[j] {
				if _, ok := ms[i][k]; !ok {
					keys[k] = true
				}
			}
		}
		for k := range keys {
			if !labelSkip[k] {
				out[i] = append(out[i], k)
			}
		}
		sort.Strings(out[i])
	}
	return out
}

// toMap turns a decoded config (map or struct) into a generic map.
func toMap(v any) (map[string]any, bool) {
	if m, ok := v.(map[string]any); ok {
		return m, true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil, false
	}
	return m, true
}

// flatten writes the scalars of m under dotted keys.
func flatten(prefix string, m map[string]any, out map[string]string) {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if labelSkip[key] {
			continue
		}
		if sub, ok := v.(map[string]any); ok {
			flatten(key, sub, out)
			continue
		}
		out[key] = scalarString(v)
	}
}

func scalarString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return units.Plain(x)
	case bool:
		return strconv.FormatBool(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
