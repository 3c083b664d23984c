package sqlite

import (
	"errors"

	sqlite3 "github.com/mattn/go-sqlite3"

	"rumbench/internal/model"
)

// ErrorKind maps SQLite's result codes to a model error kind
// (sqleng.ErrorKinds): SQLITE_BUSY and SQLITE_LOCKED, also from the
// engine's own write lock (writer.go), are busy; SQLITE_FULL is a full disk.
func (Dialect) ErrorKind(err error) error {
	code := sqlite3.ErrNo(0)
	var se sqlite3.Error
	if errors.As(err, &se) {
		code = se.Code
	} else if !errors.As(err, &code) {
		return nil
	}
	switch code {
	case sqlite3.ErrBusy, sqlite3.ErrLocked:
		return model.ErrBusy
	case sqlite3.ErrFull:
		return model.ErrDiskFull
	}
	return nil
}
