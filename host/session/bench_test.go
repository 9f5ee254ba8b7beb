package session

import (
	"os"
	"testing"
)

// BenchmarkOpen opens the session file named by SESSION_BENCH_FILE (for
// example the one bench/sessionbench generates) and plans its context.
func BenchmarkOpen(b *testing.B) {
	path := os.Getenv("SESSION_BENCH_FILE")
	if path == "" {
		b.Skip("set SESSION_BENCH_FILE to a session file")
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	for i := 0; i < b.N; i++ {
		s, err := Open(path, "/")
		if err != nil {
			b.Fatal(err)
		}
		_ = s.Plan(DefaultRules).Len()
		s.Close()
	}
}
