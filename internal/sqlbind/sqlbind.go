// Package sqlbind rewrites statements written once with ? placeholders
// (MySQL's and SQLite's) for drivers that number them (PostgreSQL's $1, $2),
// so code that talks to several databases keeps one text per statement.
package sqlbind

import (
	"strconv"
	"strings"
)

// Numbered replaces each ? in q with $1, $2, ... in order. Statements given
// to it hold no ? inside literals.
func Numbered(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
