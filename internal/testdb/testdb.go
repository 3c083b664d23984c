// Package testdb names the databases, roles and users that tests create on
// servers other processes share (the local PostgreSQL and MariaDB, a
// MongoDB given by DSN). Every name ends in a suffix made once per test
// process, so two go test processes at once (a developer's run beside CI)
// never create, fill or drop each other's databases; the base name stays in
// front, so a human can still tell what a leftover is and who made it.
package testdb

import (
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// MaxLen is the longest name the servers keep whole: PostgreSQL cuts
// identifiers at 63 bytes without an error (NAMEDATALEN-1), MariaDB refuses
// database names over 64 characters.
const MaxLen = 63

// tokenChars are valid in an unquoted identifier on every server, and
// lowercase because PostgreSQL folds unquoted names to lowercase.
const tokenChars = "abcdefghijklmnopqrstuvwxyz0123456789"

// suffix is "_p<pid>_<token>": the pid lets a human see whether the owner
// still runs; the random token keeps names apart when processes in two pid
// namespaces (containers) share one server.
var suffix = sync.OnceValue(func() string {
	token := make([]byte, 4)
	for i := range token {
		token[i] = tokenChars[rand.IntN(len(tokenChars))]
	}
	return fmt.Sprintf("_p%d_%s", os.Getpid(), token)
})

// Suffix returns this process's suffix, the same on every call.
func Suffix() string { return suffix() }

var plainName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Name returns base with this process's suffix. It fails the test when
// base is not a plain lowercase identifier (names go into SQL unquoted) or
// the name would be longer than MaxLen. A caller that appends to the name
// (a sweep's cells, the conformance suite's numbered databases) must leave
// room for that itself.
func Name(t testing.TB, base string) string {
	t.Helper()
	if !plainName.MatchString(base) {
		t.Fatalf("testdb: base name %q is not a lowercase identifier: use letters, digits and _, starting with a letter", base)
		return ""
	}
	name := base + Suffix()
	if len(name) > MaxLen {
		t.Fatalf("testdb: name %s is %d characters, over the servers' %d: shorten the base name %s", name, len(name), MaxLen, base)
		return ""
	}
	return name
}

// Owned reports whether name was made by Name in this process (also after
// a caller appended to it).
func Owned(name string) bool { return strings.Contains(name, Suffix()) }
