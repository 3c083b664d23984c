package runner

import (
	"context"
	"errors"
	"time"

	"rumbench/internal/engine"
	"rumbench/internal/model"
	"rumbench/internal/workload"
)

// EngineConnections is what a server engine opens beside the workload's
// connections: its pool for schema changes, the catalog and statistics, and
// an administrative connection.
const EngineConnections = 3

// CheckConnectionRoom refuses a run whose workload needs more connections
// at once than a server it runs on has left (a server rumbench does not
// manage): the run would otherwise fail part way, once the server says
// "too many clients". Variants run one after the other, so each is
// checked alone. A server that cannot be asked is left to the run, which
// meets and reports the same failure.
func CheckConnectionRoom(ctx context.Context, o *Options) error {
	if o.StartServer != nil || o.Shard != nil || o.NewWorkload == nil {
		return nil
	}
	w, err := o.NewWorkload()
	if err != nil {
		return nil // the run reports it
	}
	c, ok := w.(workload.Connector)
	if !ok {
		return nil
	}
	need := c.Connections() + EngineConnections
	checked := map[string]bool{}
	for _, v := range o.Variants {
		name := v.Engine
		if checked[name] {
			continue
		}
		checked[name] = true
		d, err := engine.Lookup(name)
		if err != nil || d.Kind() != model.Server {
			continue
		}
		cr, ok := d.(model.ConnectionRoom)
		if !ok {
			continue
		}
		cfg := model.Config{DSN: o.DSN, Database: o.Database, Options: v.Options}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		room, figures, err := cr.ConnectionRoom(cctx, cfg)
		cancel()
		if err != nil {
			if errors.Is(err, model.ErrSetup) {
				return &BadInputError{Err: err}
			}
			continue
		}
		if room < need {
			return badInput("%s: the run needs %d connections at once (%d for the workload's clients, %d for the engine), the server has room for %d (%s): use fewer --clients, raise its max_connections, or end other sessions",
				name, need, c.Connections(), EngineConnections, room, figures)
		}
	}
	return nil
}
