package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestWriterKeepsRecordsWholeAndOrdered(t *testing.T) {
	var out lockedBuffer
	w := NewWriter(&out, nil)
	sendFromGoroutines(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	checkWholeAndOrdered(t, strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"))
	w.Send([]byte(`{"late":true}`)) // dropped, no panic
	if strings.Contains(out.String(), "late") {
		t.Fatal("a record sent after Close was written")
	}
}

// sendFromGoroutines sends 500 records from each of 8 goroutines and
// returns when all are sent.
func sendFromGoroutines(w *Writer) {
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
}

// checkWholeAndOrdered checks the lines sendFromGoroutines sent: all of
// them, whole, each goroutine's in order.
func checkWholeAndOrdered(t *testing.T, lines []string) {
	t.Helper()
	if len(lines) != 8*500 {
		t.Fatalf("%d lines", len(lines))
	}
	next := map[int]int{}
	for _, l := range lines {
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

type failingWriter struct{ n atomic.Int32 }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.n.Add(1)
	return 0, errors.New("broken pipe")
}

func TestWriterReportsTheFirstErrorAndNeverBlocks(t *testing.T) {
	var calls atomic.Int32
	reported := make(chan error, 4)
	w := NewWriter(&failingWriter{}, func(err error) { calls.Add(1); reported <- err })
	done := make(chan struct{})
	go func() {
		for i := 0; i < 20000; i++ { // more than the queue holds
			w.Send([]byte(`{"x":1}`))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("senders blocked on a failed stream")
	}
	select {
	case err := <-reported:
		if err.Error() != "broken pipe" {
			t.Fatalf("reported %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the error was not reported")
	}
	if err := w.Close(); err == nil {
		t.Fatal("Close did not return the write error")
	}
	time.Sleep(10 * time.Millisecond)
	if calls.Load() != 1 {
		t.Fatalf("onErr called %d times", calls.Load())
	}
}

func TestWriterAbandonsAStalledClient(t *testing.T) {
	pr, pw := io.Pipe() // nobody reads pr
	defer pr.Close()
	checkAbandonsStalledClient(t, pw)
}

// checkAbandonsStalledClient starts a writer on out, whose reader never
// reads: the sender of 10,000 records never stays blocked, Close returns
// ErrAbandoned at once, and abandoning is not reported as a write failure.
func checkAbandonsStalledClient(t *testing.T, out io.Writer) {
	t.Helper()
	var reported atomic.Bool
	w := NewWriter(out, func(error) { reported.Store(true) })
	w.WatchStall(100 * time.Millisecond)
	sent := make(chan struct{})
	go func() {
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

func TestWriterSlowButReadingClientIsNotAbandoned(t *testing.T) {
	pr, pw := io.Pipe()
	w := NewWriter(pw, nil)
	w.WatchStall(300 * time.Millisecond)
	var got bytes.Buffer
	readDone := make(chan struct{})
	go func() {
		buf := make([]byte, 512)
		for {
			n, err := pr.Read(buf)
			got.Write(buf[:n])
			if err != nil {
				close(readDone)
				return
			}
			time.Sleep(time.Millisecond) // slow, but steady
		}
	}()
	for i := 0; i < 200; i++ {
		w.Send([]byte(fmt.Sprintf(`{"i":%d}`, i)))
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	pw.Close()
	<-readDone
	if n := strings.Count(got.String(), "\n"); n != 200 {
		t.Fatalf("got %d records", n)
	}
}
