package main

// go build runs ready work in the order of a depth-first walk of each
// package's imports, sorted by path. SQLite's C amalgamation is the longest
// single step of a first build (~30 s on one core): reached through
// rumbench/internal/engine/all it came last, and the build ended with one
// core idle while the other compiled it. Imported here, ahead of
// rumbench's own packages, it starts in the first seconds and runs beside
// the rest (issue 34).
import _ "github.com/mattn/go-sqlite3"
