package kv

import "context"

type storeWrapperKey struct{}

// WithStoreWrapper returns a context under which engines opened with it hand
// the kv layer wrap(store) instead of their store (WrapStore). It is for
// tools that watch the writes the kv layer makes: the load-floor benchmark
// (internal/floorbench) records them to replay them through the bare store.
// Runs users time never set it.
func WithStoreWrapper(ctx context.Context, wrap func(Store) Store) context.Context {
	return context.WithValue(ctx, storeWrapperKey{}, wrap)
}

// WrapStore returns st, or st wrapped by the wrapper of ctx
// (WithStoreWrapper). Each kv engine's Open passes its store through it.
func WrapStore(ctx context.Context, st Store) Store {
	if w, ok := ctx.Value(storeWrapperKey{}).(func(Store) Store); ok && w != nil {
		return w(st)
	}
	return st
}
