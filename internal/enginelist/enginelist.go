// Package enginelist prints the engines `rumbench engines` lists: each
// one's family, how it runs, whether it is available on this machine (a
// server engine's default address probed) and, verbosely, its settings.
package enginelist

import (
	"fmt"
	"io"
	"net"
	"sync"
	"text/tabwriter"
	"time"

	"rumbench/internal/engine"
	"rumbench/internal/managed"
	"rumbench/internal/model"
)

// Print lists the engines built in and those that are not; verbose adds
// each engine's settings and what --cache-size sets on it.
func Print(w io.Writer, verbose bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "engine\tfamily\truns\tavailable\tdescription")
	reach := probeServers(engine.All())
	for _, d := range engine.All() {
		avail := "yes"
		if err := d.Available(); err != nil {
			avail = "no: " + err.Error()
		} else if r, ok := reach[d.Name()]; ok {
			avail = r
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
			fmt.Fprintf(w, "  cache: %s\n", cacheLine(d))
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			for _, o := range d.Options() {
				fmt.Fprintf(tw, "  %s\tdefault %q\t%s\n", o.Key, o.Default, o.Help)
			}
			tw.Flush()
		}
	} else {
		fmt.Fprintln(w, "\n`rumbench engines -v` lists each engine's settings.")
	}
}

// probeTimeout bounds the wait for a server engine's default address.
const probeTimeout = time.Second

// probeServers says, per server engine built in, whether its default
// address (its DSN variable, else the local server) answers, trying them
// at once: "yes (server at ADDR)", or "not reachable at ADDR (...)" with
// the fix. A server engine is built in everywhere; what makes it
// available is a server.
func probeServers(ds []model.Driver) map[string]string {
	out := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, d := range ds {
		sa, ok := d.(model.ServerAddress)
		if !ok || d.Kind() != model.Server || d.Available() != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := probeServer(sa)
			mu.Lock()
			out[d.Name()] = r
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

func probeServer(sa model.ServerAddress) string {
	network, addr, err := sa.ServerAddress("")
	if err != nil {
		return "not reachable: " + err.Error() + " in its DSN variable"
	}
	c, err := net.DialTimeout(network, addr, probeTimeout)
	if err != nil {
		return fmt.Sprintf("not reachable at %s (start the server there, or give its address with --dsn)", addr)
	}
	c.Close()
	return fmt.Sprintf("yes (server at %s)", addr)
}

// cacheLine says what --cache-size sets on an engine.
func cacheLine(d model.Driver) string {
	switch c := d.(type) {
	case model.CacheOption:
		return fmt.Sprintf("--cache-size sets %s (an explicit --engine-opt %s=... overrides it)", c.CacheOption(), c.CacheOption())
	case model.NoCache:
		return c.NoCache() + "; --cache-size does not apply"
	}
	if key := managed.CacheSetting(d.Name()); key != "" {
		return fmt.Sprintf("--cache-size sets a --managed server's %s; a server rumbench does not manage is only checked against it", key)
	}
	if d.Kind() == model.Server {
		return "the server's own cache (read back into run.json); rumbench does not set it"
	}
	return "none"
}
