package main

// binaryTags are the build tags the tests' rumbench binary is built with:
// the cgo engines this test binary has (tags_*_test.go).
var binaryTags []string
