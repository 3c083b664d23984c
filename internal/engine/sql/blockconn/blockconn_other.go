//go:build !unix

package blockconn

import (
	"errors"
	"net"
)

// Wrap returns nc unchanged: blocking sockets are only made on Unix.
func Wrap(nc net.Conn) (net.Conn, error) { return nc, nil }

var errUnsupported = errors.New("blocking connections need Unix")

func (c *Conn) Read([]byte) (int, error)  { return 0, errUnsupported }
func (c *Conn) Write([]byte) (int, error) { return 0, errUnsupported }

func shutdown(int)      {}
func closeFD(int) error { return errUnsupported }
