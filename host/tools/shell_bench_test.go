//go:build unix

package tools

import (
	"context"
	"os"
	"testing"
)

// benchShell runs a command producing size bytes with RunShell the way the
// RPC bash command does (two streams, CR stripped, a spill file) and
// reports the throughput.
func benchShell(b *testing.B, command string, size int64) {
	dir := b.TempDir()
	b.SetBytes(size)
	for b.Loop() {
		out, err := RunShell(context.Background(), ShellRequest{
			Command: command, Cwd: dir, StripCR: true,
			OnOutput:      func(string, string) {},
			SpillFile:     func() (*os.File, error) { return os.CreateTemp(dir, "spill-*.log") },
			MaxSpillBytes: PersistMaxFileBytes,
		})
		if err != nil || !out.Truncation.Truncated {
			b.Fatal(err, out.Truncation)
		}
		os.Remove(out.FullOutputPath)
	}
}

func BenchmarkRunShellText32MB(b *testing.B) {
	benchShell(b, `head -c 33554432 /dev/zero | tr '\0' 'a' | fold -w 99`, 32<<20)
}

func BenchmarkRunShellBinary32MB(b *testing.B) {
	benchShell(b, `head -c 33554432 /dev/urandom`, 32<<20)
}
