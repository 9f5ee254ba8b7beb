package rpc

import (
	"bufio"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// ErrAbandoned is the writer's error once it gave up on a stalled stream.
var ErrAbandoned = errors.New("output abandoned: the client stopped reading")

// Writer is the only writer of the protocol stream. Records are queued by
// any goroutine and written, one line each, by a single goroutine in the
// order they were queued. A full queue blocks the sender, which gives the
// agent back-pressure when the client stops reading. The buffer is flushed
// whenever the queue runs empty, so a record never waits behind nothing.
type Writer struct {
	ch     chan []byte
	done   chan struct{}
	cmu    sync.RWMutex // guards closed; senders hold it shared
	closed bool
	emu    sync.Mutex // guards err
	err    error
	onErr  func(error)

	stop      chan struct{} // closed when the stream is abandoned
	stopOnce  sync.Once
	busySince atomic.Int64 // unix nanoseconds a write began; 0 when idle
	watching  atomic.Bool
}

// NewWriter starts the writer goroutine on w. onErr, if set, is called once
// when a write fails (for example when the client went away).
func NewWriter(w io.Writer, onErr func(error)) *Writer {
	wr := &Writer{ch: make(chan []byte, 4096), done: make(chan struct{}), stop: make(chan struct{}), onErr: onErr}
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
		w.busySince.Store(time.Now().UnixNano())
		_, err := bw.Write(rec)
		if err == nil && len(w.ch) == 0 {
			err = bw.Flush()
		}
		w.busySince.Store(0)
		if err != nil {
			failed = w.fail(err)
		}
	}
	if !failed {
		w.busySince.Store(time.Now().UnixNano())
		if err := bw.Flush(); err != nil {
			w.fail(err)
		}
		w.busySince.Store(0)
	}
}

func (w *Writer) fail(err error) bool {
	w.emu.Lock()
	first := w.err == nil
	if first {
		w.err = err
	}
	w.emu.Unlock()
	if first && w.onErr != nil && !errors.Is(err, ErrAbandoned) {
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
// used by the caller afterwards. It blocks while the queue is full, until
// the stream drains or is abandoned.
func (w *Writer) SendLine(line []byte) {
	w.cmu.RLock()
	defer w.cmu.RUnlock()
	if w.closed {
		return
	}
	// Holding the shared lock while sending keeps Close from closing the
	// channel under a sender; the writer goroutine never takes it, so a
	// full queue only waits for the stream to drain (or be abandoned).
	select {
	case w.ch <- line:
	case <-w.stop:
	}
}

// Abandon gives up on the stream: queued and later records are dropped,
// senders no longer block, and Close no longer waits for a write that
// does not finish.
func (w *Writer) Abandon() {
	w.stopOnce.Do(func() {
		w.fail(ErrAbandoned)
		close(w.stop)
	})
}

// WatchStall abandons the stream as soon as one write has been blocked for
// longer than d (a client that stopped reading). It watches until the
// writer has finished; calling it again does nothing.
func (w *Writer) WatchStall(d time.Duration) {
	if d <= 0 || !w.watching.CompareAndSwap(false, true) {
		return
	}
	go func() {
		tick := time.NewTicker(d / 4)
		defer tick.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-w.stop:
				return
			case <-tick.C:
				if since := w.busySince.Load(); since != 0 && time.Since(time.Unix(0, since)) > d {
					w.Abandon()
					return
				}
			}
		}
	}()
}

// Close writes everything queued, flushes, and stops the writer. After
// Abandon it returns without waiting for a blocked write.
func (w *Writer) Close() error {
	w.cmu.Lock()
	if !w.closed {
		w.closed = true
		close(w.ch)
	}
	w.cmu.Unlock()
	select {
	case <-w.done:
	case <-w.stop:
	}
	return w.Err()
}

// Err returns the first write error.
func (w *Writer) Err() error {
	w.emu.Lock()
	defer w.emu.Unlock()
	return w.err
}
