package kube

import (
	"net/url"
	"strings"
)

// DSNHasPassword reports whether a server address carries a password: a
// URL's user:password@, a MySQL user:password@tcp(...), or password=...
func DSNHasPassword(dsn string) bool {
	if u, err := url.Parse(dsn); err == nil && strings.Contains(dsn, "://") {
		if u.User != nil {
			if _, ok := u.User.Password(); ok {
				return true
			}
		}
		for k := range u.Query() { // postgres://u@h/db?password=...
			if isPasswordKey(k) {
				return true
			}
		}
		return false
	}
	// MySQL's user:pass@tcp(host)/db
	if at := strings.LastIndex(dsn, "@"); at > 0 && strings.Contains(dsn[:at], ":") {
		return true
	}
	// key=value DSNs: "host=h user=u password=p"
	for _, f := range strings.Fields(dsn) {
		if k, _, ok := strings.Cut(f, "="); ok && isPasswordKey(k) {
			return true
		}
	}
	return false
}

// isPasswordKey reports whether a DSN parameter carries a secret.
func isPasswordKey(k string) bool {
	switch strings.ToLower(strings.TrimSpace(k)) {
	case "password", "passwd", "sslpassword":
		return true
	}
	return false
}
