// Package floorbench holds the floor benchmarks, which measure rumbench
// against the bare thing underneath it:
//
//   - BenchmarkFloor (scripts/floor.sh): on one server and one table, in one
//     process, bare driver loops that send exactly the statements an
//     insert benchmark step sends (for PostgreSQL two: pgx's own interface
//     and pgconn under it), then the rumbench step itself, and the client
//     CPU each spends per operation.
//   - BenchmarkLoadFloor (scripts/loadfloor.sh): per kv engine, the
//     LinkBench load and an l.i0 of as many rows, each run by rumbench with
//     the kv layer's batches recorded, then replayed through the engine's
//     bare store: the rate the engine alone takes exactly those writes at.
//
// The package has no code of its own outside its tests.
package floorbench
