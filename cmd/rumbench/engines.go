package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"rumbench/internal/engine"
)

func newEnginesCmd() *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:   "engines",
		Short: "List the engines, their family, how they run, and whether they are available here",
		Args:  argsNone,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "engine\tfamily\truns\tavailable\tdescription")
			for _, d := range engine.All() {
				avail := "yes"
				if err := d.Available(); err != nil {
					avail = "no: " + err.Error()
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Name(), d.Family(), d.Kind(), avail, d.Description())
			}
			for _, u := range engine.AllUnbuilt() {
				fmt.Fprintf(tw, "%s\t%s\t%s\tno: %s\t\n", u.Name, u.Family, u.Kind, u.Reason)
			}
			tw.Flush()
			if verbose {
				for _, d := range engine.All() {
					if len(d.Options()) == 0 {
						continue
					}
					fmt.Fprintf(w, "\n%s settings (--engine-opt key=value):\n", d.Name())
					tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
					for _, o := range d.Options() {
						fmt.Fprintf(tw, "  %s\tdefault %q\t%s\n", o.Key, o.Default, o.Help)
					}
					tw.Flush()
				}
			} else {
				fmt.Fprintln(w, "\n`rumbench engines -v` lists each engine's settings.")
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "also list each engine's settings and defaults")
	return cmd
}
