package mongo

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procRoot is /proc (a variable for tests).
var procRoot = "/proc"

// listenerPid returns the pid of the process with a TCP socket listening on
// port: the socket's inode from /proc/net/tcp{,6}, then the process holding
// it among /proc/*/fd. It finds servers that don't report their pid
// (FerretDB) and needs permission to read their fds (same user, or root).
func listenerPid(port int) (int, error) {
	inodes := map[string]bool{}
	for _, f := range []string{"net/tcp", "net/tcp6"} {
		if err := listeningInodes(filepath.Join(procRoot, f), port, inodes); err != nil && !os.IsNotExist(err) {
			return 0, err
		}
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("no socket here listens on port %d (server in another network namespace or container?)", port)
	}
	procs, err := os.ReadDir(procRoot)
	if err != nil {
		return 0, err
	}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fdDir := filepath.Join(procRoot, p.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			if inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("a socket listens on port %d but no process visible here holds it (run as the server's user or root)", port)
}

// listeningInodes adds the inodes of sockets in LISTEN state (0A) on port
// from a /proc/net/tcp-format file.
func listeningInodes(path string, port int, out map[string]bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	want := fmt.Sprintf(":%04X", port)
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != "0A" || !strings.HasSuffix(fields[1], want) {
			continue
		}
		out[fields[9]] = true
	}
	return sc.Err()
}
