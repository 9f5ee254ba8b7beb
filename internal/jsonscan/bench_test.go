package jsonscan

import (
	"bufio"
	"os"
	"testing"
)

// BenchmarkValidSessionLines validates the lines of a session file named by
// JSONSCAN_BENCH_FILE (for example the one bench/sessionbench generates).
func BenchmarkValidSessionLines(b *testing.B) {
	path := os.Getenv("JSONSCAN_BENCH_FILE")
	if path == "" {
		b.Skip("set JSONSCAN_BENCH_FILE to a JSONL file")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	var total int64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() && total < 64<<20 {
		l := append([]byte(nil), sc.Bytes()...)
		lines = append(lines, l)
		total += int64(len(l))
	}
	b.SetBytes(total)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			if !Valid(l) {
				b.Fatal("invalid line")
			}
		}
	}
}
