package managed

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ServerUser is the unprivileged user managed servers run as when rumbench
// runs as root (PostgreSQL refuses root). It is created when missing.
const ServerUser = "rumbench"

// ensureUser returns the uid and gid of ServerUser, creating it as a system
// user without a home or a login shell when it does not exist.
func ensureUser() (uid, gid int, err error) {
	u, err := user.Lookup(ServerUser)
	if err != nil {
		var unknown user.UnknownUserError
		if !errors.As(err, &unknown) {
			return 0, 0, fmt.Errorf("look up user %s: %w", ServerUser, err)
		}
		out, cerr := exec.Command("useradd", "--system", "--user-group", "--no-create-home",
			"--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", ServerUser).CombinedOutput()
		if _, lerr := user.Lookup(ServerUser); cerr != nil && lerr != nil {
			// (A concurrent rumbench may have created it meanwhile.)
			return 0, 0, fmt.Errorf("create the system user %s for the managed servers (PostgreSQL refuses to run as root): useradd: %v: %s", ServerUser, cerr, strings.TrimSpace(string(out)))
		}
		if u, err = user.Lookup(ServerUser); err != nil {
			return 0, 0, fmt.Errorf("look up user %s after creating it: %w", ServerUser, err)
		}
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("user %s has a non-numeric uid/gid %s/%s", ServerUser, u.Uid, u.Gid)
	}
	return uid, gid, nil
}

// allowTraverse makes sure the user uid/gid can enter dir: dir itself gets
// the search (x) bit for others when it lacks it (it is the server's own
// directory: mkdtemp makes it 0700), and every directory above must already
// allow it, or the error names the one that does not.
func allowTraverse(dir string, uid, gid int) error {
	can := func(st *syscall.Stat_t) bool {
		m := st.Mode
		switch {
		case int(st.Uid) == uid:
			return m&0o100 != 0
		case int(st.Gid) == gid:
			return m&0o010 != 0
		}
		return m&0o001 != 0
	}
	for p := dir; ; p = filepath.Dir(p) {
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			return fmt.Errorf("stat %s: %w", p, err)
		}
		if !can(&st) {
			if p != dir {
				return fmt.Errorf("%w: the managed server runs as user %s, which cannot enter %s (mode %04o): choose a --data-dir it can reach (e.g. under /var/tmp or /tmp)", ErrBadDir, ServerUser, p, st.Mode&0o7777)
			}
			if err := os.Chmod(p, os.FileMode(st.Mode&0o777|0o001)); err != nil {
				return fmt.Errorf("let user %s enter %s: %w", ServerUser, p, err)
			}
		}
		if p == "/" {
			return nil
		}
	}
}

// serverEnv is the environment of the server commands: the process's own
// without variables that would redirect the servers (PG*, MYSQL*), with
// English messages (the logs are parsed for errors) and HOME in the server
// dir.
func serverEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PG") || strings.HasPrefix(k, "MYSQL") || strings.HasPrefix(k, "MARIADB") ||
			strings.HasPrefix(k, "LC_") || k == "LANG" || k == "LANGUAGE" || k == "HOME" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LANG=C.UTF-8", "LC_MESSAGES=C", "HOME="+home)
}

// freePort returns a TCP port on 127.0.0.1 that nothing listens on now.
// The kernel picks it from the ephemeral range, so it is never a system
// server's 5432 or 3306.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// portTaken reports whether a server log says its port was in use.
func portTaken(log string) bool {
	return strings.Contains(log, "Address already in use") || strings.Contains(log, "Do you already have another server running on port")
}

// killGroup kills whatever is left in process group pgid and waits (up to 5
// s) until it is gone, so no process outlives a managed server.
func killGroup(pgid int) {
	if pgid <= 0 {
		return
	}
	for i := 0; i < 500 && len(GroupMembers(pgid)) > 0; i++ {
		syscall.Kill(-pgid, syscall.SIGKILL)
		time.Sleep(10 * time.Millisecond)
	}
}

// GroupMembers lists the live (not zombie) processes of process group pgid,
// from /proc. A managed server's pid is its group's id.
func GroupMembers(pgid int) []int {
	var out []int
	eachProc(func(pid int, state string, _, pgrp int) {
		if pgrp == pgid && state != "Z" && state != "X" {
			out = append(out, pid)
		}
	})
	return out
}

// eachProc calls fn with every process's pid, state, parent and process
// group, read from /proc/PID/stat (processes that vanish are skipped).
func eachProc(fn func(pid int, state string, ppid, pgrp int)) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 3 {
			continue
		}
		ppid, err1 := strconv.Atoi(f[1])
		pgrp, err2 := strconv.Atoi(f[2])
		if err1 == nil && err2 == nil {
			fn(pid, f[0], ppid, pgrp)
		}
	}
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
