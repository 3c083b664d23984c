// Package floorbench holds the client-floor benchmark (BenchmarkFloor, run
// by scripts/floor.sh): on one server and one table, in one process, it
// runs a bare driver loop that sends exactly the statements an insert
// benchmark step sends and then the rumbench step itself, and compares the
// client CPU each spends per operation. The package has no code of its
// own outside its test.
package floorbench
