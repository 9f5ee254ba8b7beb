//go:build !linux

package main

// makePrivate has no equivalent here; see private_linux.go.
func makePrivate() error { return nil }
