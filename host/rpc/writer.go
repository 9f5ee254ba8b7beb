package rpc

import (
	"bufio"
	"io"
	"sync"
)

// Writer is the only writer of the protocol stream. Records are queued by
// any goroutine and written, one line each, by a single goroutine in the
// order they were queued. A full queue blocks the sender, which gives the
// agent back-pressure when the client stops reading.
type Writer struct {
	ch     chan []byte
	done   chan struct{}
	cmu    sync.RWMutex // guards closed; senders hold it shared
	closed bool
	emu    sync.Mutex // guards err
	err    error
	onErr  func(error)
}

// NewWriter starts the writer goroutine on w. onErr, if set, is called once
// when a write fails (for example when the client went away).
func NewWriter(w io.Writer, onErr func(error)) *Writer {
	wr := &Writer{ch: make(chan []byte, 4096), done: make(chan struct{}), onErr: onErr}
	go wr.loop(w)
	return wr
}

func (w *Writer) loop(out io.Writer) {
	defer close(w.done)
	bw := bufio.NewWriterSize(out, 64*1024)
	failed := false
	for rec := range w.ch {
		if failed {
			continue // drain so that senders never block on a dead stream
		}
		if _, err := bw.Write(rec); err == nil && len(w.ch) == 0 {
			err = bw.Flush()
			if err != nil {
				failed = w.fail(err)
			}
		} else if err != nil {
			failed = w.fail(err)
		}
	}
	if !failed {
		if err := bw.Flush(); err != nil {
			w.fail(err)
		}
	}
}

func (w *Writer) fail(err error) bool {
	w.emu.Lock()
	first := w.err == nil
	if first {
		w.err = err
	}
	w.emu.Unlock()
	if first && w.onErr != nil {
		go w.onErr(err)
	}
	return true
}

// Send queues one record; a newline is appended. Records sent after Close
// are dropped.
func (w *Writer) Send(rec []byte) {
	line := make([]byte, len(rec)+1)
	copy(line, rec)
	line[len(rec)] = '\n'
	w.SendLine(line)
}

// SendLine queues a record that already ends with a newline and is not
// used by the caller afterwards.
func (w *Writer) SendLine(line []byte) {
	w.cmu.RLock()
	defer w.cmu.RUnlock()
	if w.closed {
		return
	}
	// Holding the shared lock while sending keeps Close from closing the
	// channel under a sender; the writer goroutine never takes it, so a
	// full queue only waits for the stream to drain.
	w.ch <- line
}

// Close writes everything queued, flushes, and stops the writer.
func (w *Writer) Close() error {
	w.cmu.Lock()
	if !w.closed {
		w.closed = true
		close(w.ch)
	}
	w.cmu.Unlock()
	<-w.done
	return w.Err()
}

// Err returns the first write error.
func (w *Writer) Err() error {
	w.emu.Lock()
	defer w.emu.Unlock()
	return w.err
}
