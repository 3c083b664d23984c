package mongo

import (
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"rumbench/internal/engine/dbserver"
	"rumbench/internal/model"
)

// Server error codes rumbench reacts to.
const (
	codeUnauthorized         = 13
	codeAuthenticationFailed = 18
	codeNamespaceExists      = 48
)

func errCode(err error) (int32, bool) {
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return ce.Code, true
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		for _, c := range []int32{codeUnauthorized, codeAuthenticationFailed, codeNamespaceExists} {
			if se.HasErrorCode(int(c)) {
				return c, true
			}
		}
	}
	return 0, false
}

func isNamespaceExists(err error) bool {
	c, ok := errCode(err)
	return ok && c == codeNamespaceExists
}

// classify turns connection, authentication and permission failures into
// one-line errors naming the fix. The caller redacts the password.
func (d *DB) classify(err error) error {
	if err == nil {
		return nil
	}
	user := ""
	if d.p.cs != nil {
		user = d.p.cs.Username
	}
	msg := err.Error()
	code, hasCode := errCode(err)
	switch {
	case code == codeAuthenticationFailed || strings.Contains(msg, "AuthenticationFailed") || strings.Contains(msg, "auth error") || strings.Contains(msg, "Authentication failed"):
		return model.SetupError(dbserver.WithMessage(fmt.Sprintf("mongodb: authentication failed for user %q at %s: check the user, password and authSource in --dsn or $%s (%s)", user, d.host, EnvDSN, lastCause(msg)), err))
	case hasCode && code == codeUnauthorized:
		return model.SetupError(dbserver.WithMessage(fmt.Sprintf("mongodb: user %q lacks a privilege (%s): grant it a role such as readWrite and dbAdmin on database %s (or dbOwner), plus clusterMonitor for serverStatus", user, lastCause(msg), d.p.name), err))
	case isUnreachable(err):
		return model.SetupError(dbserver.WithMessage(fmt.Sprintf("mongodb: cannot reach the server at %s: start mongod (or FerretDB) there or give its address with --dsn or $%s (e.g. mongodb://user@host:27017/): %s", d.host, EnvDSN, lastCause(msg)), err))
	}
	return dbserver.OneLine(fmt.Errorf("mongodb: %w", err))
}

// isUnreachable reports a failure to reach any server: refused, timed out
// selecting a server, DNS, no route.
func isUnreachable(err error) bool {
	var sse topology.ServerSelectionError
	if errors.As(err, &sse) || mongo.IsNetworkError(err) {
		return true
	}
	if dbserver.Unreachable(err) {
		return true
	}
	return strings.Contains(err.Error(), "server selection error")
}

// lastCause shortens a driver error to its innermost cause: server
// selection errors describe the whole topology
// ("... Last error: dial tcp ...: connection refused }, ] }"); the last
// error is the part worth a one-line message.
func lastCause(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if i := strings.LastIndex(msg, "Last error: "); i >= 0 {
		msg = msg[i+len("Last error: "):]
		msg = strings.TrimRight(msg, " }],")
	}
	return msg
}

// ferretUniqueViolation recognises FerretDB 1.x's error for a unique index
// built over duplicate values: not MongoDB's DuplicateKey (code 11000) but
// an InternalError carrying its SQL backend's unique violation — SQLite's
// "UNIQUE constraint failed", PostgreSQL's SQLSTATE 23505. (Inserts that a
// unique index refuses do get code 11000.)
func ferretUniqueViolation(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "UNIQUE constraint failed") || strings.Contains(msg, "SQLSTATE 23505")
}
