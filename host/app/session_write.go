package app

import (
	"sync"

	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/session"
)

// writeHealth remembers which sessions' files failed their last write, so
// that a failure streak is reported once (session_write_error) and its end
// once (session_write_recovered). A failed entry stays in the session and
// is written with the next successful write.
type writeHealth struct {
	mu      sync.Mutex
	failing map[*session.Session]bool
}

// appendEntry appends to a session, reporting a change in its file's
// write health. It must not be called with rt.mu held (it emits).
func (rt *Runtime) appendEntry(s *session.Session, e session.Entry) *session.Entry {
	ep, ev := rt.appendEntryNote(s, e)
	if ev != nil {
		rt.Emit(ev)
	}
	return ep
}

// appendEntryLocked is appendEntry for callers holding rt.mu: the event,
// if any, is emitted from another goroutine once the lock is released.
func (rt *Runtime) appendEntryLocked(s *session.Session, e session.Entry) *session.Entry {
	ep, ev := rt.appendEntryNote(s, e)
	if ev != nil {
		go rt.Emit(ev)
	}
	return ep
}

func (rt *Runtime) appendEntryNote(s *session.Session, e session.Entry) (*session.Entry, events.Event) {
	ep, err := s.AppendEntry(e)
	return ep, rt.noteWrite(s, err)
}

// noteWrite records the outcome of a write to s's file and returns the
// event to emit when it changed (nil otherwise).
func (rt *Runtime) noteWrite(s *session.Session, err error) events.Event {
	if s == nil || s.Path() == "" {
		return nil
	}
	h := &rt.writes
	h.mu.Lock()
	defer h.mu.Unlock()
	was := h.failing[s]
	switch {
	case err != nil && !was:
		if h.failing == nil {
			h.failing = map[*session.Session]bool{}
		}
		h.failing[s] = true
		rt.log.Error("cannot write the session file; its entries are kept in memory and written once it works again", "file", s.Path(), "err", err)
		return events.SessionWriteError{SessionFile: s.Path(), Error: err.Error()}
	case err != nil:
		rt.log.Debug("the session file is still not writable", "file", s.Path(), "err", err)
	case was:
		delete(h.failing, s)
		rt.log.Info("the session file is writable again; the held entries were written", "file", s.Path())
		return events.SessionWriteRecovered{SessionFile: s.Path()}
	}
	return nil
}
