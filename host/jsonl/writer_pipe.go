package jsonl

import (
	"os"
	"syscall"
	"time"
)

// Writing to a pipe in whole lines.
//
// A client that stops reading makes the writer give up (Abandon) so that
// the process can exit; what it drops must be whole lines, and the last
// line in the pipe must be complete, or the client's reader sees a torn
// record. A pipe in non-blocking mode takes a write of at most pipeBuf
// bytes whole or not at all, so:
//
//   - lines of at most pipeBuf bytes are packed, whole, into writes of at
//     most pipeBuf bytes: a write that does not fit fails with EAGAIN and
//     nothing of it is in the pipe;
//   - when more lines are queued than fit in pipeBuf and the pipe surely
//     has room for packMax bytes (pipeRoom), whole lines are packed into
//     one write of up to packMax bytes instead: a non-blocking write with
//     room for all of it is taken whole (should it be partial anyway, the
//     rest is finished like a long line that has begun, below);
//   - a longer line is written only once the pipe has room for all of it
//     (pipeRoom), so it does not stop halfway when the client stops
//     reading: in one write up to packMax bytes, in pipeBuf pieces above;
//   - waits are cut in slices that look at the abandon signal: before the
//     first byte of a line it drops the line (and everything after it);
//     in the middle of a line (only possible for a line longer than the
//     pipe's capacity, or if the room estimate was wrong) it keeps trying
//     for lineGrace to complete it.

// lineGrace is how long an abandoned writer still tries to complete a line
// it has begun.
const lineGrace = 2 * time.Second

// pipeSize is the capacity the writer asks for (Linux's default maximum
// for unprivileged processes, /proc/sys/fs/pipe-max-size): the longest
// line that is written only when it fits whole. If the kernel refuses,
// the pipe keeps its capacity (64 KiB by default).
const pipeSize = 1 << 20

// packMax is the most bytes written in one system call when the pipe has
// room for them (a prompt's stream of short deltas then takes a write per
// 64 KiB instead of one per 4 KiB).
const packMax = 64 << 10

// pipeRoom estimates the free room of the output pipe from the bytes it
// holds (FIONREAD) and the sizes of our recent writes. A pipe is a ring
// of page-sized slots; a write of n bytes occupies at most ceil(n/page)
// new slots (its remainder is merged into the last page or starts a page
// of its own, the rest fills whole pages), so the unread bytes, which are
// the tail of what we wrote, occupy at most the slots of our last writes
// they span.
type pipeRoom struct {
	raw   syscall.RawConn
	page  int
	slots int   // capacity in slots
	sizes []int // ring of the sizes of our last writes
	next  int   // index of the next entry of sizes
	count int   // entries of sizes in use
}

func newPipeRoom(raw syscall.RawConn) *pipeRoom {
	capacity := 0
	_ = raw.Control(func(fd uintptr) { capacity = growPipe(int(fd), pipeSize) })
	slots := capacity / os.Getpagesize()
	if slots < 1 {
		slots = 1
	}
	return &pipeRoom{raw: raw, page: os.Getpagesize(), slots: slots, sizes: make([]int, slots)}
}

// slotsOf is the most slots a write of n bytes occupies.
func (p *pipeRoom) slotsOf(n int) int { return max(1, (n+p.page-1)/p.page) }

// hasRoom reports whether the pipe surely has room for n more bytes.
func (p *pipeRoom) hasRoom(n int) bool {
	if p == nil {
		return false
	}
	unread := p.unread()
	return unread >= 0 && p.freeSlots(unread) >= (n+pipeBuf-1)/pipeBuf
}

// wrote records a write of n bytes.
func (p *pipeRoom) wrote(n int) {
	if p == nil || n == 0 {
		return
	}
	p.sizes[p.next] = n
	p.next = (p.next + 1) % len(p.sizes)
	if p.count < len(p.sizes) {
		p.count++
	}
}

// unread returns the bytes the pipe holds, or -1 when it cannot tell.
func (p *pipeRoom) unread() int {
	n := -1
	_ = p.raw.Control(func(fd uintptr) { n = pipeUnread(int(fd)) })
	return n
}

// freeSlots returns how many slots are surely free when the pipe holds
// unread bytes.
func (p *pipeRoom) freeSlots(unread int) int {
	if unread == 0 {
		return p.slots
	}
	used := 0
	for i := 1; i <= p.count && unread > 0; i++ {
		size := p.sizes[(p.next-i+len(p.sizes))%len(p.sizes)]
		unread -= size
		used += p.slotsOf(size)
	}
	if unread > 0 {
		return 0 // bytes we did not write (or forgot): assume full
	}
	return p.slots - used
}

// pipeLoop is the writer goroutine for a pipe.
func (w *Writer) pipeLoop() {
	defer close(w.done)
	chunk := make([]byte, 0, packMax)
	var pending []byte // a record taken from the queue but not yet written
	for {
		rec := pending
		pending = nil
		if rec == nil {
			r, ok := <-w.ch
			if !ok {
				return
			}
			rec = r
		}
		w.wmu.Lock()
		n := int64(1)
		if len(rec) <= pipeBuf {
			// Pack the queued short lines that fit into one write.
			chunk = append(chunk[:0], rec...)
			for len(w.ch) > 0 {
				next := <-w.ch // there is one: only this goroutine receives
				if len(chunk)+len(next) > pipeBuf {
					pending = next
					break
				}
				chunk = append(chunk, next...)
				n++
			}
			if pending != nil && w.pipe.hasRoom(packMax) {
				// More is queued and the pipe has room: pack up to packMax.
				for pending != nil && len(chunk)+len(pending) <= packMax {
					chunk = append(chunk, pending...)
					n++
					pending = nil
					if len(w.ch) > 0 {
						pending = <-w.ch
					}
				}
			}
			rec = chunk
		}
		if !w.failed {
			if err := w.writeLine(rec); err != nil {
				w.failed = w.fail(err)
			}
		}
		w.queued.Add(-n)
		w.wmu.Unlock()
	}
}

// writeLine writes whole lines (rec ends with a newline); wmu is held.
func (w *Writer) writeLine(rec []byte) error {
	whole := false // one write for all of rec: the pipe has room for it
	if len(rec) > pipeBuf {
		if err := w.waitRoom((len(rec) + pipeBuf - 1) / pipeBuf); err != nil {
			return err
		}
		whole = len(rec) <= packMax
	}
	begun := false
	var graceEnd time.Time
	for len(rec) > 0 {
		piece := rec
		if !whole && len(piece) > pipeBuf {
			piece = piece[:pipeBuf]
		}
		n, err := w.writeSome(piece)
		if err != nil {
			return err
		}
		if n > 0 {
			// A partial write (only when the room estimate was wrong)
			// goes on in pieces, with the grace of a begun line.
			rec = rec[n:]
			begun = true
			whole = false
			continue
		}
		// The pipe is full: wait for the client to read.
		select {
		case <-w.stop:
			if !begun {
				return ErrAbandoned // the line is dropped whole
			}
			if graceEnd.IsZero() {
				graceEnd = time.Now().Add(lineGrace)
			} else if time.Now().After(graceEnd) {
				return ErrAbandoned // the client never read the rest
			}
		default:
		}
		if err := w.waitWritable(); err != nil {
			return err
		}
	}
	return nil
}

// waitWritable waits, for at most a short slice, until the pipe may take
// more; it marks the writer busy for the stall watch while it waits.
func (w *Writer) waitWritable() error {
	f := w.out.(*os.File)
	if w.busySince.Load() == 0 {
		w.busySince.Store(time.Now().UnixNano())
	}
	_ = f.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	waited := false
	err := w.raw.Write(func(fd uintptr) bool {
		// The first call returns at once, asking the poller to wait; the
		// second comes when the pipe became writable: the caller then
		// tries its write again.
		if !waited {
			waited = true
			return false
		}
		return true
	})
	_ = f.SetWriteDeadline(time.Time{})
	if err != nil && !os.IsTimeout(err) {
		return err
	}
	return nil
}

// waitRoom waits until the pipe surely has need free slots (or is empty,
// for a line longer than its capacity), or the stream is abandoned.
func (w *Writer) waitRoom(need int) error {
	delay := 100 * time.Microsecond
	last := -1
	for {
		unread := w.pipe.unread()
		if unread < 0 {
			return nil // cannot tell: write as before
		}
		free := w.pipe.freeSlots(unread)
		if free >= need || (need > w.pipe.slots && unread == 0) {
			w.busySince.Store(0)
			return nil
		}
		if last != unread {
			// The client is reading (or this is the first look): the
			// stall watch counts from its last progress.
			w.busySince.Store(time.Now().UnixNano())
			last = unread
		}
		select {
		case <-w.stop:
			w.busySince.Store(0)
			return ErrAbandoned
		case <-time.After(delay):
		}
		if delay < 10*time.Millisecond {
			delay *= 2
		}
	}
}
