// Package dbserver holds the helpers shared by the engines that talk to a
// database server (postgres, innodb and myrocks, mongodb): the DSN they
// use, database names, one-line errors without secrets, whether a server
// is local, its pid, and whether it was reached at all.
package dbserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// DatabaseDropper is implemented by server engines: it drops the database
// rumbench created (tests, and the drop_database engine option).
type DatabaseDropper interface {
	DropDatabase(ctx context.Context) error
}

var dbNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// CheckDatabaseName accepts plain identifiers only, so a database name never
// needs quoting rules that differ between servers and can't address another
// database by accident.
func CheckDatabaseName(name string) error {
	if !dbNameRE.MatchString(name) {
		return fmt.Errorf("bad --database %q: use letters, digits and _ (not starting with a digit), at most 63 characters", name)
	}
	return nil
}

// DSN returns the DSN to use: the given one, else the environment variable
// env, else def.
func DSN(given, env, def string) string {
	if given != "" {
		return given
	}
	if v := os.Getenv(env); v != "" {
		return v
	}
	return def
}

// msgErr is an error with a rewritten message (a secret replaced, lines
// joined) that still unwraps to the original so errors.Is/As work.
type msgErr struct {
	msg string
	err error
}

func (r *msgErr) Error() string { return r.msg }
func (r *msgErr) Unwrap() error { return r.err }

// WithMessage returns an error reading msg that unwraps to err.
func WithMessage(msg string, err error) error { return &msgErr{msg: msg, err: err} }

// LastLine is the last non-empty line of err's message, trimmed: drivers
// that try several addresses (pgx's fallbacks) list one attempt per line,
// and the last one is the cause worth a one-line error.
func LastLine(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// OneLine joins a multi-line error message into one line.
func OneLine(err error) error {
	if err == nil || !strings.Contains(err.Error(), "\n") {
		return err
	}
	f := strings.Fields(err.Error())
	return &msgErr{msg: strings.Join(f, " "), err: err}
}

// Redact replaces every occurrence of secret in err's message with "xxxxx",
// so no error path can print a password from a DSN.
func Redact(err error, secret string) error {
	if err == nil || secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return &msgErr{msg: strings.ReplaceAll(err.Error(), secret, "xxxxx"), err: err}
}

// LocalHost reports whether host (a name, an IP or a Unix socket path)
// addresses this machine, so the server's files and processes are ours to
// read.
func LocalHost(host string) bool {
	if host == "" || strings.HasPrefix(host, "/") || strings.HasPrefix(host, "@") {
		return true // Unix socket (path or abstract)
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// ServerPid reads the first line of a server's pid file and checks that the
// pid is a running process here whose command name contains want ("postgres",
// "mariadbd"/"mysqld"). A stale pid file or a server in another container or
// namespace yields an error saying so.
func ServerPid(pidFile string, want ...string) (int, error) {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return 0, fmt.Errorf("read server pid file: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("server pid file %s does not start with a pid (%q)", pidFile, line)
	}
	comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	if err != nil {
		return 0, fmt.Errorf("pid %d from %s is not a process visible here (stale pid file, or the server runs in another container)", pid, pidFile)
	}
	name := strings.TrimSpace(string(comm))
	for _, w := range want {
		if strings.Contains(name, w) {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("pid %d from %s is %q, not the server (stale pid file?)", pid, pidFile, name)
}

// Unreachable reports whether err is a failure to reach the server at all
// (refused, no route, no such socket, DNS, timeout) rather than a refusal by
// the server.
func Unreachable(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	if errors.As(err, &op) || errors.As(err, &dns) {
		return true
	}
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"connection refused", "no such file or directory", "i/o timeout", "no route to host", "dial error", "network is unreachable"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
