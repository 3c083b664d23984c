// Package version identifies the rumbench build.
package version

import "runtime/debug"

// Version is the release version; Commit is set at build time with
// -ldflags "-X rumbench/internal/version.Commit=$(git rev-parse HEAD)".
var (
	Version = "0.1.0-dev"
	Commit  = ""
)

// Revision returns the VCS revision of this build: the linker-set commit,
// else Go's embedded VCS info, else "unknown".
func Revision() string {
	if Commit != "" {
		return Commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += "-dirty"
			}
			return rev
		}
	}
	return "unknown"
}
