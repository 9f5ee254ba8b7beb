package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// tornLines reads what a pipe holds after the writer is done and reports
// the lines that are not whole records, and the records' sequence numbers.
func tornLines(t *testing.T, data []byte) (torn []string, seqs []int) {
	t.Helper()
	if len(data) > 0 && data[len(data)-1] != '\n' {
		i := bytes.LastIndexByte(data, '\n')
		torn = append(torn, fmt.Sprintf("unterminated last line of %d bytes", len(data)-i-1))
		data = data[:i+1]
	}
	for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var rec struct {
			Seq int `json:"seq"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			torn = append(torn, fmt.Sprintf("%.60q… (%d bytes)", line, len(line)))
			continue
		}
		seqs = append(seqs, rec.Seq)
	}
	return torn, seqs
}

// A client that reads a little and then stops, while records of every
// size are written (short ones packed together, ones of several pipe
// pages, ones of most of the pipe): the writer is abandoned at exit, and
// what the pipe holds is whole lines, in order, the last one complete.
func TestWriterOnAPipeDropsWholeLines(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int
		first int // bytes the client reads before it stops
	}{
		{"short lines", []int{100, 3000, 50}, 10000},
		{"lines of a few pages", []int{5000, 20000, 100}, 7000},
		{"lines of most of the pipe", []int{300 << 10, 700 << 10, 10}, 1 << 20},
		{"nothing read", []int{9000, 40000, 4095, 4096, 4097}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			w := NewWriter(pw, nil)
			w.WatchStall(100 * time.Millisecond)
			readFirst := make(chan []byte, 1)
			go func() {
				buf := make([]byte, tc.first)
				n, _ := io.ReadFull(pr, buf)
				readFirst <- buf[:n]
			}()
			sent := make(chan struct{})
			go func() {
				defer close(sent)
				for i := 0; i < 400; i++ {
					size := tc.sizes[i%len(tc.sizes)]
					pad := size - len(fmt.Sprintf(`{"seq":%d,"pad":""}`, i)) - 1
					if pad < 0 {
						pad = 0
					}
					w.Send([]byte(fmt.Sprintf(`{"seq":%d,"pad":"%s"}`, i, strings.Repeat("x", pad))))
				}
			}()
			var head []byte
			if tc.first > 0 {
				head = <-readFirst
			}
			<-sent
			done := make(chan error, 1)
			go func() { done <- w.Close() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Close did not return for a stalled client")
			}
			pw.Close()
			rest, err := io.ReadAll(pr)
			if err != nil {
				t.Fatal(err)
			}
			if tc.first == 0 {
				head = nil
			}
			torn, seqs := tornLines(t, append(head, rest...))
			if len(torn) > 0 {
				t.Fatalf("%d torn lines, for example %s", len(torn), torn[0])
			}
			for i := 1; i < len(seqs); i++ {
				if seqs[i] != seqs[i-1]+1 {
					t.Fatalf("record %d follows record %d: lines were dropped in the middle", seqs[i], seqs[i-1])
				}
			}
			if len(seqs) == 0 && tc.first > 0 {
				t.Fatal("no record was written at all")
			}
		})
	}
}
