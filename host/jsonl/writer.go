package jsonl

import (
	"bufio"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/atomic-go/atomic/internal/jsonw"
)

// ErrAbandoned is the writer's error once it gave up on a stalled stream.
var ErrAbandoned = errors.New("output abandoned: the client stopped reading")

// Writer is the only writer of the protocol stream. Records are queued by
// any goroutine and written, one line each, by a single goroutine in the
// order they were queued. A full queue blocks the sender, which gives the
// agent back-pressure when the client stops reading. The buffer is flushed
// whenever the queue runs empty, so a record never waits behind nothing.
//
// When the output is a pipe in non-blocking mode (as clients connect, see
// cmd/atomic), a short record (at most pipeBuf bytes, which a pipe takes
// whole or not at all) is written by its sender itself when nothing is
// queued or being written: the hand-off to the writer goroutine would wake
// a thread on another core for every response. A record the pipe cannot
// take at once is queued as usual, so a sender never blocks on a client
// that stopped reading (the reading goroutine, which answers quick
// commands itself, must keep reading). On a pipe the writer goroutine
// writes whole lines only (writer_pipe.go): when a stalled client makes it
// drop output, it drops whole lines and the last line in the pipe is
// complete.
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

	// The output and its buffer: written by the loop, or directly by a
	// sender when nothing is queued (see SendLine).
	wmu    sync.Mutex
	out    io.Writer
	bw     *bufio.Writer
	raw    syscall.RawConn // the output pipe's descriptor when direct writes are allowed
	queued atomic.Int64    // records sent to ch and not yet written
	failed bool            // guarded by wmu
	pipe   *pipeRoom       // what the pipe holds, when raw is set; guarded by wmu
	// directEnd is when the last record written by its sender (the fast
	// path of SendLine) was done, in UnixNano; guarded by wmu.
	directEnd int64
}

// directGap is how long after a record written by its sender the next
// one still goes through the writer goroutine: a record that follows so
// closely is part of a burst (a streamed reply's events), which the writer
// packs into few writes, while the sender goes on producing. A lone record
// (the answer to a command, after the client's round trip) is written at
// once by its sender.
const directGap = 10 * time.Microsecond

// NewWriter starts the writer goroutine on w. onErr, if set, is called once
// when a write fails (for example when the client went away).
func NewWriter(w io.Writer, onErr func(error)) *Writer {
	wr := &Writer{ch: make(chan []byte, 4096), done: make(chan struct{}), stop: make(chan struct{}), onErr: onErr,
		out: w, bw: bufio.NewWriterSize(w, 64*1024), raw: pipeConn(w)}
	if wr.raw != nil {
		wr.pipe = newPipeRoom(wr.raw)
		go wr.pipeLoop()
		return wr
	}
	go wr.loop()
	return wr
}

func (w *Writer) loop() {
	defer close(w.done)
	for rec := range w.ch {
		w.wmu.Lock()
		if !w.failed { // else drain, so that senders never block on a dead stream
			w.busySince.Store(time.Now().UnixNano())
			_, err := w.bw.Write(rec)
			if err == nil && len(w.ch) == 0 {
				err = w.bw.Flush()
			}
			w.busySince.Store(0)
			if err != nil {
				w.failed = w.fail(err)
			}
		}
		w.queued.Add(-1)
		w.wmu.Unlock()
	}
	w.wmu.Lock()
	if !w.failed {
		w.busySince.Store(time.Now().UnixNano())
		if err := w.bw.Flush(); err != nil {
			w.fail(err)
		}
		w.busySince.Store(0)
	}
	w.wmu.Unlock()
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
// the stream drains or is abandoned. Bytes that are not valid UTF-8 are
// written as U+FFFD (RFC 8259 §8.1: whatever a layer above passed through
// raw, an id, a value kept from a file, the output is UTF-8).
func (w *Writer) SendLine(line []byte) {
	line = jsonw.ValidUTF8(line)
	w.cmu.RLock()
	defer w.cmu.RUnlock()
	if w.closed {
		return
	}
	// Fast path: nothing queued and nobody writing, so the record can go
	// out at once from this goroutine, saving the hand-off to the writer.
	if w.raw != nil && len(line) <= pipeBuf && w.wmu.TryLock() {
		if w.queued.Load() == 0 && !w.failed && !w.abandoned() && time.Now().UnixNano()-w.directEnd > int64(directGap) {
			done, err := w.writeNow(line)
			if err != nil {
				w.failed = w.fail(err)
			}
			w.directEnd = time.Now().UnixNano()
			w.wmu.Unlock()
			if done || err != nil {
				return
			}
		} else {
			w.wmu.Unlock()
		}
	}
	// Holding the shared lock while sending keeps Close from closing the
	// channel under a sender; the writer goroutine never takes it, so a
	// full queue only waits for the stream to drain (or be abandoned).
	w.queued.Add(1)
	select {
	case w.ch <- line:
	case <-w.stop:
		w.queued.Add(-1)
	}
}

func (w *Writer) abandoned() bool {
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}

// Backlogged reports whether records are waiting to be written. The
// reading goroutine answers a quick command itself only when they are not,
// so that a client that stopped reading cannot block it on a full queue.
func (w *Writer) Backlogged() bool { return w.queued.Load() > 0 }

// pipeBuf is the size up to which a write to a pipe is atomic (Linux's
// PIPE_BUF): in non-blocking mode it writes everything or nothing.
const pipeBuf = 4096

// pipeConn returns the raw descriptor of w when it is a pipe in
// non-blocking mode, else nil.
func pipeConn(w io.Writer) syscall.RawConn {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	nonblocking := false
	_ = rc.Control(func(fd uintptr) {
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		nonblocking = errno == 0 && flags&syscall.O_NONBLOCK != 0
	})
	if !nonblocking {
		return nil
	}
	return rc
}

// writeNow writes line (at most pipeBuf bytes) if the pipe takes it at
// once, and reports whether it did.
func (w *Writer) writeNow(line []byte) (bool, error) {
	n, err := w.writeSome(line)
	switch {
	case err != nil:
		return false, err
	case n == 0:
		return false, nil
	case n != len(line):
		// Not possible for a pipe and a record of at most pipeBuf bytes;
		// a torn record would corrupt the stream, so stop writing.
		return false, io.ErrShortWrite
	}
	return true, nil
}

// writeSome makes one non-blocking write of b and returns how many bytes
// the pipe took: 0 when it is full (EAGAIN), all of b for at most pipeBuf
// bytes or when it has room, else possibly part.
func (w *Writer) writeSome(b []byte) (int, error) {
	var n int
	var werr error
	err := w.raw.Write(func(fd uintptr) bool {
		for {
			n, werr = syscall.Write(int(fd), b)
			if werr != syscall.EINTR {
				return true // never wait for the pipe to become writable
			}
		}
	})
	switch {
	case werr == syscall.EAGAIN:
		return 0, nil
	case werr != nil:
		return 0, werr
	case err != nil:
		return 0, err
	}
	w.pipe.wrote(n)
	return n, nil
}

// Abandon gives up on the stream: queued and later records are dropped,
// senders no longer block, and Close no longer waits for a write that
// does not finish.
func (w *Writer) Abandon() {
	w.stopOnce.Do(func() {
		w.fail(ErrAbandoned)
		close(w.stop)
		if w.raw != nil {
			return // the pipe loop never blocks for long and sees stop itself
		}
		if f, ok := w.out.(*os.File); ok {
			// Unblock the writer goroutine's write in progress, if the
			// output takes deadlines; later writes fail at once.
			_ = f.SetWriteDeadline(time.Unix(1, 0))
		}
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
	if w.raw != nil {
		// On a pipe the loop drops whole lines once abandoned, after at
		// most lineGrace spent finishing the line it had begun.
		<-w.done
		return w.Err()
	}
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
