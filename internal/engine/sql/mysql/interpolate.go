package mysql

import "strings"

// The text of a statement with its arguments in place, as
// go-sql-driver/mysql's client-side interpolation (interpolateParams)
// writes it, so the server receives the same statements whether the
// driver or the session interpolates.

// splitPlaceholders splits a statement at its '?' placeholders, skipping
// those in quoted strings, backquoted names and comments by the driver's
// own rules; the result has one more part than the statement has
// placeholders. noBackslashEscapes is the session's sql_mode, under which
// a backslash in a string escapes nothing.
func splitPlaceholders(q string, noBackslashEscapes bool) []string {
	const (
		normal = iota
		inString
		escaped // after a backslash in a string
		lineComment
		blockComment
		backquoted
	)
	var parts []string
	state, last := normal, 0
	single := false // the string is in single quotes
	var prev byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		if state == escaped && !(c == '\'' && single || c == '"' && !single) {
			state, prev = inString, c
			continue
		}
		switch c {
		case '*':
			if state == normal && prev == '/' {
				state = blockComment
			}
		case '/':
			if state == blockComment && prev == '*' {
				state, prev = normal, 0 // "*/*" opens no new comment
				continue
			}
		case '#':
			if state == normal {
				state = lineComment
			}
		case '-':
			if state == normal && prev == '-' && (i+1 == len(q) || strings.IndexByte(" \t\n\r", q[i+1]) >= 0) {
				state = lineComment
			}
		case '\n':
			if state == lineComment {
				state = normal
			}
		case '"', '\'':
			switch {
			case state == normal:
				state, single = inString, c == '\''
			case state == inString && single == (c == '\''):
				state = normal
			case state == escaped:
				state = inString
			}
		case '\\':
			if state == inString && !noBackslashEscapes {
				state = escaped
			}
		case '?':
			if state == normal {
				parts = append(parts, q[last:i])
				last = i + 1
			}
		case '`':
			switch state {
			case backquoted:
				state = normal
			case normal:
				state = backquoted
			}
		}
		prev = c
	}
	return append(parts, q[last:])
}

// appendBinary appends v as the driver writes a []byte argument:
// _binary'...' with backslash escapes, or with quotes doubled when the
// session's sql_mode has NO_BACKSLASH_ESCAPES (then a backslash is an
// ordinary character).
func appendBinary(q, v []byte, noBackslashEscapes bool) []byte {
	q = append(q, "_binary'"...)
	for _, c := range v {
		if noBackslashEscapes {
			if c == '\'' {
				q = append(q, '\'')
			}
			q = append(q, c)
			continue
		}
		if e := backslashEscape[c]; e != 0 {
			q = append(q, '\\', e)
			continue
		}
		q = append(q, c)
	}
	return append(q, '\'')
}

// backslashEscape: the characters escaped with a backslash, and the
// character that follows it (those mysql_real_escape_string escapes).
var backslashEscape = [256]byte{
	0:    '0',
	'\n': 'n',
	'\r': 'r',
	0x1a: 'Z',
	'\'': '\'',
	'"':  '"',
	'\\': '\\',
}
