package merge

import (
	"encoding/json"
	"fmt"
	"strings"

	"rumbench/internal/results"
	"rumbench/internal/units"
)

// serverProcessSet is how sysmetrics names a process set that is the
// server's process tree (a shard on the server's host).
const serverProcessSet = "server process tree"

// serverShard is the shard whose step metrics are the server's (it ran
// on the server's host): of those, the one whose step lasted longest, so
// its measuring window covers the server's work for every shard (the
// shards start together; a count-bounded step ends when each has done its
// part); nil when none ran there.
func serverShard(have []*results.Bundle, step string) *results.Bundle {
	var best *results.Bundle
	for _, b := range have {
		s := b.Steps[step]
		if s == nil || s.Metrics == nil || !strings.HasPrefix(s.Metrics.ProcessSet, serverProcessSet) {
			continue
		}
		if best == nil || s.Seconds > best.Steps[step].Seconds {
			best = b
		}
	}
	return best
}

// shardMetrics is one shard's own metrics in a merged step's details.
type shardMetrics struct {
	Shard   int              `json:"shard"`
	Host    string           `json:"host"`
	Metrics *results.Metrics `json:"metrics"`
}

// mergeMetrics is the merged step's system metrics: the server's (CPU,
// IO, memory, size) from the shard on its host, with every per-operation
// figure divided by the merged counts; the client's CPU summed over the
// shards. Without a shard on the server's host the server's figures are
// null with the reason. Every shard's own metrics go to
// details.shard_metrics.
func mergeMetrics(sum *results.Step, parts []*results.Step, have []*results.Bundle, from *results.Bundle) *results.Metrics {
	var per []shardMetrics
	var client, clientUser, clientSys int64
	clientOK, splitOK := true, true
	for i, p := range parts {
		per = append(per, shardMetrics{Shard: have[i].Run.Shard.Index, Host: have[i].Run.Host.Hostname, Metrics: p.Metrics})
		if p.Metrics == nil || p.Metrics.ClientCPUUs == nil {
			clientOK = false
			continue
		}
		client += *p.Metrics.ClientCPUUs
		if p.Metrics.ClientCPUUserUs == nil || p.Metrics.ClientCPUSysUs == nil {
			splitOK = false
			continue
		}
		clientUser += *p.Metrics.ClientCPUUserUs
		clientSys += *p.Metrics.ClientCPUSysUs
	}
	// Through JSON, as a reader of the bundle sees it.
	if raw, err := json.Marshal(per); err == nil {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			sum.Details[DetailShardMetrics] = v
		}
	}
	m := &results.Metrics{NullReasons: map[string]string{}}
	if from != nil {
		src := from.Steps[sum.Step].Metrics
		raw, err := json.Marshal(src)
		if err == nil {
			json.Unmarshal(raw, m)
		}
		if m.NullReasons == nil {
			m.NullReasons = map[string]string{}
		}
		m.ProcessSet = fmt.Sprintf("%s (from shard %d on host %s)", src.ProcessSet, from.Run.Shard.Index, from.Run.Host.Hostname)
		// The other shards on the server's host were "other processes"
		// to it: they are the run's clients, not noise.
		if m.OtherCPUUs != nil {
			other := *m.OtherCPUUs
			for i, p := range parts {
				if have[i] != from && have[i].Run.Host.Hostname == from.Run.Host.Hostname && p.Metrics != nil && p.Metrics.ClientCPUUs != nil {
					other -= *p.Metrics.ClientCPUUs
				}
			}
			other = max(other, 0)
			m.OtherCPUUs = &other
			if m.NoiseSpanS != nil && *m.NoiseSpanS > 0 {
				c := units.RoundSig(float64(other) / 1e6 / *m.NoiseSpanS)
				m.OtherCPUCores = &c
			}
		}
	} else {
		var hosts []string
		for _, b := range have {
			hosts = append(hosts, b.Run.Host.Hostname)
		}
		// "On the server's host" means seeing its processes: a shard in
		// a container (a Kubernetes pod, even with hostNetwork on the
		// server's node) does not, though its host name is the node's.
		why := fmt.Sprintf("no shard ran on the server's host where it could read the server's /proc counters (shards on %s; a shard in a container, a Kubernetes pod even on the server's node, cannot): the server's figures were not read; details.shard_metrics has each shard's own figures", strings.Join(hosts, ", "))
		for _, k := range []string{"cpu_us", "cs", "dev_reads", "dev_writes", "dev_rkb", "dev_wkb", "dev_discards", "dev_discard_kb", "proc_rkb", "proc_wkb", "disk_bytes", "pss_bytes"} {
			m.NullReasons[k] = why
		}
		m.ProcessSet = "none: " + why
	}
	m.ClientCPUUs, m.ClientCPUUserUs, m.ClientCPUSysUs = nil, nil, nil
	delete(m.NullReasons, "client_cpu_us")
	if clientOK {
		m.ClientCPUUs = &client
		if splitOK {
			m.ClientCPUUserUs, m.ClientCPUSysUs = &clientUser, &clientSys
		}
		m.ClientCPUSource = "rumbench processes' user+sys CPU, summed over the shards"
	} else {
		m.NullReasons["client_cpu_us"] = "a shard's client CPU was not measured (see details.shard_metrics)"
	}
	m.SetPerOp(sum)
	mergeInternals(m, sum, parts)
	amplification(m, sum)
	if len(m.NullReasons) == 0 {
		m.NullReasons = nil
	}
	return m
}

// amplification recomputes write and space amplification over the merged
// logical bytes, by the rules sysmetrics applies to one process
// (results.Metrics.SetWriteAmp, SetSpaceAmp).
func amplification(m *results.Metrics, sum *results.Step) {
	m.SetLogicalBytes(sum.Details)
	m.SetWriteAmp("the server's bytes written were not measured")
	m.SetSpaceAmp(sum.EngineSize)
}

// mergeInternals takes the engine's own counters of the shard whose step
// lasted longest (the server's counters, which every shard reads alike and
// which that shard's window covers for all) and divides them by the merged
// counts; summing them over the shards would count the server's work once
// per shard.
func mergeInternals(m *results.Metrics, sum *results.Step, parts []*results.Step) {
	var best *results.Step
	for _, p := range parts {
		if p == nil || p.Metrics == nil || p.Metrics.Internals == nil {
			continue
		}
		if best == nil || p.Seconds > best.Seconds {
			best = p
		}
	}
	m.EngineCounters, m.Internals, m.InternalsScope, m.InternalsPerOp = nil, nil, "", nil
	if best == nil {
		return
	}
	m.EngineCounters, m.Internals, m.InternalsScope = best.Metrics.EngineCounters, best.Metrics.Internals, best.Metrics.InternalsScope
	m.SetInternalsPerOp(sum)
}
