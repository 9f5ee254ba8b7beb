package jsonl

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// The same guarantees on a pipe, where senders write directly whenever
// nothing is queued: whole lines, each goroutine's records in order.
func TestWriterOnAPipeKeepsRecordsWholeAndOrdered(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	lines := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		lines <- got
	}()
	w := NewWriter(pw, nil)
	if w.raw == nil {
		t.Fatal("a pipe should allow direct writes")
	}
	sendFromGoroutines(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	checkWholeAndOrdered(t, <-lines)
}

// A client that stops reading a pipe: the sender never blocks in a direct
// write (a full pipe sends the record to the queue), and Close returns
// once the stream is abandoned.
func TestWriterOnAPipeAbandonsAStalledClient(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close() // nobody reads it
	defer pw.Close()
	// One sender, so that its writes are direct until the pipe fills.
	checkAbandonsStalledClient(t, pw)
}

// A backlog of short lines on a pipe with room is written in writes of up
// to packMax bytes (not pipeBuf), whole lines each, all of them in order.
func TestWriterOnAPipePacksABacklogIntoLargeWrites(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	w := NewWriter(pw, nil)
	if w.pipe == nil {
		t.Skip("the pipe's room cannot be known here")
	}
	// Hold the writer so that the records queue up.
	w.wmu.Lock()
	const n = 2000
	line := func(i int) string { return fmt.Sprintf(`{"seq":%d,"pad":"%s"}`, i, strings.Repeat("d", 250)) }
	for i := range n {
		w.Send([]byte(line(i)))
	}
	w.wmu.Unlock()
	read := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(pr)
		read <- b
	}()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	largest, writes := 0, 0
	for _, s := range w.pipe.sizes[:w.pipe.count] {
		largest = max(largest, s)
		writes++
	}
	pw.Close()
	got := strings.Split(strings.TrimSuffix(string(<-read), "\n"), "\n")
	if len(got) != n {
		t.Fatalf("%d lines, want %d", len(got), n)
	}
	for i, l := range got {
		if l != line(i) {
			t.Fatalf("line %d: %q", i, clipLine(l))
		}
	}
	if largest <= pipeBuf || largest > packMax {
		t.Fatalf("largest write %d bytes, want more than %d and at most %d", largest, pipeBuf, packMax)
	}
	t.Logf("%d writes recorded, the largest %d bytes", writes, largest)
}

func clipLine(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
