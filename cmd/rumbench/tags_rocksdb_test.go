//go:build rocksdb

package main

func init() { binaryTags = append(binaryTags, "rocksdb") }
