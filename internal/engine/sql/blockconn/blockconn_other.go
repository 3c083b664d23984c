//go:build !unix

package blockconn

import (
	"errors"
	"os"
	"syscall"
)

var errDeadline = os.ErrDeadlineExceeded

var errUnsupported = errors.New("blocking connections need Unix")

func dupBlocking(syscall.RawConn) (int, error) { return -1, errUnsupported }

func (c *Conn) readBlocking([]byte) (int, error)  { return 0, errUnsupported }
func (c *Conn) writeBlocking([]byte) (int, error) { return 0, errUnsupported }

func shutdownFD(int)    {}
func closeFD(int) error { return errUnsupported }
