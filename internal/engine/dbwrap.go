package engine

import (
	"context"

	"rumbench/internal/model"
)

type dbWrapperKey struct{}

// WithDBWrapper returns a context under which Open hands back wrap(db)
// instead of the engine it opened. It is for tools that watch the calls a
// run makes on the engine, the model's counterpart of kv.WithStoreWrapper:
// the load-floor benchmark (internal/floorbench) records each connection's
// inserts to replay them through the kv layer alone. Runs users time never
// set it; Open then pays one context lookup.
func WithDBWrapper(ctx context.Context, wrap func(model.DB) model.DB) context.Context {
	return context.WithValue(ctx, dbWrapperKey{}, wrap)
}

// wrapDB returns db, or db wrapped by the wrapper of ctx (WithDBWrapper).
func wrapDB(ctx context.Context, db model.DB) model.DB {
	if w, ok := ctx.Value(dbWrapperKey{}).(func(model.DB) model.DB); ok && w != nil {
		return w(db)
	}
	return db
}
