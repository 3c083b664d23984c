package audit

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// A stamped log has one line per line an outside tool printed, prefixed
// with the Unix time in nanoseconds at which it was read, and a space.
// iostat and pidstat flush each report as they print it, so the stamp is
// the report's sampling time within milliseconds: their own timestamps
// have whole seconds only, and an interval attributed from them could be
// off by up to a second. StartMark and EndMark lines bracket the tool's
// run: its first report covers the time from its start.
const (
	StartMark = "#stamp-start"
	EndMark   = "#stamp-end"
)

// Line is one line of a stamped log.
type Line struct {
	T    time.Time
	Text string
}

// Stamp copies r to w line by line, each line prefixed with now()'s Unix
// nanoseconds, flushing after every line.
func Stamp(r io.Reader, w io.Writer, now func() time.Time) error {
	bw := bufio.NewWriter(w)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if err := WriteLine(bw, now(), sc.Text()); err != nil {
			return err
		}
	}
	return sc.Err()
}

// WriteLine writes one stamped line and flushes it.
func WriteLine(bw *bufio.Writer, t time.Time, text string) error {
	if _, err := fmt.Fprintf(bw, "%d %s\n", t.UnixNano(), text); err != nil {
		return err
	}
	return bw.Flush()
}

// ReadStamped reads a stamped log. A line without a stamp (a tool's
// message written by something else) is an error naming its number.
func ReadStamped(r io.Reader) ([]Line, error) {
	var out []Line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	n := 0
	for sc.Scan() {
		n++
		ns, text, _ := strings.Cut(sc.Text(), " ")
		v, err := strconv.ParseInt(ns, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: no stamp: %q", n, sc.Text())
		}
		out = append(out, Line{T: time.Unix(0, v), Text: text})
	}
	return out, sc.Err()
}
