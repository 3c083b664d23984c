//go:build !unix

package blockconn

import "errors"

func setNonblock(int, bool) error { return errors.New("blocking connections need Unix") }

func shutdownFD(int) {}
