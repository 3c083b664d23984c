package managed

import (
	"strings"
	"testing"
)

// The --managed request is checked against the run before any server
// starts: each refusal names the flag to fix.
func TestNewPlanRefusals(t *testing.T) {
	base := Request{Selected: []string{"pebble", "postgres"}, Servers: []string{"postgres"}}
	for _, c := range []struct {
		name string
		set  func(r *Request)
		want string
	}{
		{"server-opt alone", func(r *Request) { r.ServerOpts = []string{"shared_buffers=1GB"} }, "--server-opt configures a managed server: add --managed"},
		{"keep-data alone", func(r *Request) { r.KeepData = true }, "--keep-data keeps a managed server's data"},
		{"not a server", func(r *Request) { r.Given, r.Engines = true, []string{"pebble"} }, "--managed pebble: only postgres, innodb, myrocks run on a managed server"},
		{"not selected", func(r *Request) { r.Given, r.Engines = true, []string{"innodb"} }, "--managed innodb: innodb is not in --engine: add it there"},
		{"no server engine", func(r *Request) { r.Given, r.Engines, r.Servers = true, []string{All}, nil }, "--managed: no server engine in --engine pebble,postgres"},
		{"dsn", func(r *Request) { r.Given, r.Engines, r.DSN = true, []string{All}, "host=x" }, "--dsn addresses a server, --managed starts one"},
		{"keep without dir", func(r *Request) { r.Given, r.Engines, r.KeepData = true, []string{"true"}, true }, "--keep-data needs --data-dir"},
	} {
		r := base
		c.set(&r)
		p, err := NewPlan(r)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: plan %+v, error %v; want %q", c.name, p, err, c.want)
		}
	}
	if p, err := NewPlan(base); p != nil || err != nil {
		t.Errorf("without --managed: %+v, %v", p, err)
	}
}

func TestCheckKept(t *testing.T) {
	if err := CheckKept("pebble", t.TempDir(), ""); err == nil || !strings.Contains(err.Error(), "does not run on a managed server") {
		t.Errorf("pebble: %v", err)
	}
	if err := CheckKept("postgres", "", ""); err == nil || !strings.Contains(err.Error(), "--managed needs --data-dir") {
		t.Errorf("no dir: %v", err)
	}
	if err := CheckKept("postgres", t.TempDir(), ""); err == nil || !strings.Contains(err.Error(), "holds no kept managed server") {
		t.Errorf("empty dir: %v", err)
	}
}
