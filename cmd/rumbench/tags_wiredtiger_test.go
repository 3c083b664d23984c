//go:build wiredtiger

package main

func init() { binaryTags = append(binaryTags, "wiredtiger") }
