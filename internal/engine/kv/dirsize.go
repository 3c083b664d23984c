package kv

import (
	"errors"
	"io/fs"
	"path/filepath"
)

// DirFileBytes sums the apparent sizes of the regular files under dir: an
// engine's own report of its size. Files deleted during the walk (compacted
// SSTs, archived logs) are skipped.
func DirFileBytes(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if e.Type().IsRegular() {
			if fi, err := e.Info(); err == nil {
				total += fi.Size()
			}
		}
		return nil
	})
	if err != nil {
		return -1, err
	}
	return total, nil
}
