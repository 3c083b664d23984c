package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"rumbench/internal/enginetest"
	"rumbench/internal/testdb"
)

// relay forwards TCP connections accepted on addr to target until the test
// ends: the server listens on loopback only, and the shards in their
// network namespaces reach it through their host-side address.
func relay(t *testing.T, addr, target string) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("relay on %s: %v", addr, err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				s, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer s.Close()
				go io.Copy(s, c)
				io.Copy(c, s)
			}()
		}
	}()
}

// netns makes network namespace name with a veth pair: the host side gets
// 10.<net>.<i>.1/30, the namespace's side 10.<net>.<i>.2/30. It is removed
// (with its pair) when the test ends.
func netns(t *testing.T, name string, subnet int, i int) (host string) {
	t.Helper()
	ipc := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	exec.Command("ip", "netns", "del", name).Run()
	ipc("netns", "add", name)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", name).Run() })
	hostIf, nsIf := name+"h", name+"n"
	host = fmt.Sprintf("10.%d.%d.1", subnet, i)
	ipc("link", "add", hostIf, "type", "veth", "peer", "name", nsIf)
	ipc("link", "set", nsIf, "netns", name)
	ipc("addr", "add", host+"/30", "dev", hostIf)
	ipc("link", "set", hostIf, "up")
	ipc("netns", "exec", name, "ip", "addr", "add", fmt.Sprintf("10.%d.%d.2/30", subnet, i), "dev", nsIf)
	ipc("netns", "exec", name, "ip", "link", "set", nsIf, "up")
	ipc("netns", "exec", name, "ip", "link", "set", "lo", "up")
	return host
}

// TestShardedRunNetworkNamespaces runs 2 shards each in its own network
// namespace, with its own address, reaching the server over a veth pair:
// the merged bundle has the whole run's counts, verify accepts the
// database, and as no shard reached the server over loopback (its host,
// as far as a shard can tell), the server's metrics are null saying why
// while the shards' client CPU adds up.
func TestShardedRunNetworkNamespaces(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("the ip tool (iproute2) is missing: network namespaces cannot be made")
	}
	if os.Geteuid() != 0 {
		if enginetest.RequireServers() {
			t.Fatal("network namespaces need root (CI or RUMBENCH_REQUIRE_SERVERS is set)")
		}
		t.Skip("network namespaces need root")
	}
	admin := pgAdmin(t)
	cfg := admin.Config()
	target := net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	database := testdb.Name(t, "rb_shard_netns")
	freshDB(t, admin, database)
	subnet := 200 + os.Getpid()%50
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]string, 2)
	outs := make([]string, 2)
	for i := range 2 {
		name := fmt.Sprintf("rbsh%d%d", os.Getpid()%10000, i)
		host := netns(t, name, subnet, i)
		addr := net.JoinHostPort(host, "5432")
		relay(t, addr, target)
		u := url.URL{Scheme: "postgres", Host: addr, Path: "/postgres", RawQuery: "sslmode=disable"}
		u.User = url.User(cfg.User)
		if cfg.Password != "" {
			u.User = url.UserPassword(cfg.User, cfg.Password)
		}
		outs[i] = filepath.Join(dir, fmt.Sprint(i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each shard gets another --dsn: the run id leaves it out.
			cmd := exec.CommandContext(context.Background(), "ip", "netns", "exec", name, binary, "run", "--engine", "postgres", "--dsn", u.String(),
				"--database", database, "--clients", "4", "--rows", "1000", "--churn-rows", "500", "--indexes", "1",
				"--query-seconds", "1", "--steps", "l.i0,l.x,l.i1,qp100", "--interval", "250ms",
				"--shard", fmt.Sprintf("%d/2", i), "--shard-timeout", "30s", "--out", outs[i])
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Sprintf("shard %d in %s: %v\n%s", i, name, err, out)
			}
		}()
	}
	wg.Wait()
	m := mergeShardsOf(t, errs, dir, outs, "postgres")
	for _, c := range []struct {
		step, op    string
		count, rows int64
	}{
		{"l.i0", "insert", 40, 4000},
		{"l.x", "index", 4, 4000},
		{"l.i1", "insert", 32, 1600},
		{"l.i1", "delete", 32, 1600},
	} {
		o := m.Steps[c.step].Ops[c.op]
		if o == nil || o.Count != c.count || o.Rows != c.rows {
			t.Fatalf("merged %s %s = %+v, want %d operations of %d rows", c.step, c.op, o, c.count, c.rows)
		}
	}
	q := m.Steps["qp100"]
	if q.Metrics == nil || q.Metrics.CPUUs != nil || !strings.Contains(q.Metrics.NullReasons["cpu_us"], "no shard ran on the server's host") {
		t.Fatalf("qp100: server metrics should be null with the reason, got %+v", q.Metrics)
	}
	if q.Metrics.ClientCPUUs == nil || *q.Metrics.ClientCPUUs <= 0 {
		t.Fatalf("qp100: the shards' client CPU is missing: %+v", q.Metrics)
	}
	if spread, ok := q.Details["shard_start_spread_ms"].(float64); !ok || spread > 200 {
		t.Fatalf("qp100: shard_start_spread_ms = %v, want at most 200 ms", q.Details["shard_start_spread_ms"])
	}
	if stdout, stderr, code := rb(t, "verify", "--engine", "postgres", "--dsn", pgDSN(), "--database", database); code != 0 {
		t.Fatalf("verify: exit %d: %s%s", code, stdout, stderr)
	}
}
