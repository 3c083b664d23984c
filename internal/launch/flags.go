package launch

import (
	"strings"

	"github.com/spf13/pflag"
)

// FlagArgs is the command line that sets the flags of fs that were given
// (on the command line or by a --config file), one --name=value each, in
// the flag set's (sorted) order, leaving out those skip names. It is how a
// pod is started with the same settings as the command that wrote its
// manifest.
func FlagArgs(fs *pflag.FlagSet, skip func(name string) bool) []string {
	var out []string
	fs.Visit(func(f *pflag.Flag) {
		if skip != nil && skip(f.Name) {
			return
		}
		switch v := f.Value.(type) {
		case pflag.SliceValue:
			items := v.GetSlice()
			if f.Value.Type() == "stringArray" {
				// Repeated, each value as it is (it may hold commas).
				for _, s := range items {
					out = append(out, "--"+f.Name+"="+s)
				}
				return
			}
			out = append(out, "--"+f.Name+"="+strings.Join(items, ","))
		default:
			out = append(out, "--"+f.Name+"="+f.Value.String())
		}
	})
	return out
}
