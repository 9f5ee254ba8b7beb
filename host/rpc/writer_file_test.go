package rpc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				w.Send([]byte(fmt.Sprintf(`{"g":%d,"i":%d,"pad":"%s"}`, g, i, strings.Repeat("p", i%97))))
			}
		}(g)
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	got := <-lines
	if len(got) != 8*500 {
		t.Fatalf("%d lines", len(got))
	}
	next := map[int]int{}
	for _, l := range got {
		var g, i int
		if _, err := fmt.Sscanf(l, `{"g":%d,"i":%d,`, &g, &i); err != nil {
			t.Fatalf("torn line %q", l)
		}
		if i != next[g] {
			t.Fatalf("goroutine %d: record %d after %d", g, i, next[g]-1)
		}
		next[g]++
	}
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
	var reported atomic.Bool
	w := NewWriter(pw, func(error) { reported.Store(true) })
	w.WatchStall(100 * time.Millisecond)
	sent := make(chan struct{})
	go func() {
		// One sender, so that its writes are direct until the pipe fills.
		for i := 0; i < 10000; i++ {
			w.Send([]byte(`{"x":"` + strings.Repeat("y", 100) + `"}`))
		}
		close(sent)
	}()
	select {
	case <-sent:
	case <-time.After(5 * time.Second):
		t.Fatal("the sender stayed blocked on a stalled client")
	}
	closed := make(chan error)
	go func() { closed <- w.Close() }()
	select {
	case err := <-closed:
		if !errors.Is(err, ErrAbandoned) {
			t.Fatalf("Close returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for a stalled client")
	}
	if reported.Load() {
		t.Fatal("abandoning is not a write failure to report")
	}
}
