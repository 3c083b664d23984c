package runcli

import (
	"fmt"
	"strings"

	"rumbench/internal/workload"
)

// ExplainFlagError turns "unknown flag: --tables" for one workload into a
// line naming the workload the flag belongs to; other errors are returned
// as they are.
func ExplainFlagError(err error, chosen string) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	owners := workload.FlagOwners(name, chosen)
	if len(owners) == 0 {
		return err
	}
	return fmt.Errorf("--%s applies to workload %s only, not %s: remove it (or run `rumbench run %s`)", name, strings.Join(owners, ", "), chosen, owners[0])
}

// RewriteWorkloadFlag turns `run --workload X ...` into `run X ...`, so the
// flag and the subcommand are one way of choosing a workload.
func RewriteWorkloadFlag(args []string) ([]string, error) {
	if len(args) == 0 || args[0] != "run" {
		return args, nil
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		var name string
		switch {
		case a == "--workload" && i+1 < len(args):
			name = args[i+1]
			args = append(args[:i:i], args[i+2:]...)
		case strings.HasPrefix(a, "--workload="):
			name = strings.TrimPrefix(a, "--workload=")
			args = append(args[:i:i], args[i+1:]...)
		default:
			continue
		}
		if _, err := workload.Lookup(name); err != nil {
			return nil, fmt.Errorf("unknown --workload %q: choose one of %s (see `rumbench workloads`)", name, strings.Join(workload.Names(), ", "))
		}
		if len(args) > 1 && isWorkload(args[1]) && args[1] != name {
			return nil, fmt.Errorf("--workload %s contradicts `run %s`: give the workload once", name, args[1])
		}
		if len(args) > 1 && args[1] == name {
			return args, nil
		}
		return append([]string{"run", name}, args[1:]...), nil
	}
	return args, nil
}

func isWorkload(name string) bool {
	_, err := workload.Lookup(name)
	return err == nil
}
