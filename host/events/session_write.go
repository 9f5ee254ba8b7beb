package events

// SessionWriteError reports that the session file could not be written
// (a full disk, a file or directory made read-only, a removed directory).
// The session goes on in memory and keeps the unwritten entries; they are
// written, in order, as soon as a later write succeeds, which
// SessionWriteRecovered announces. It is emitted once per failure streak.
type SessionWriteError struct {
	SessionFile string `json:"sessionFile"`
	Error       string `json:"error"`
}

// SessionWriteRecovered reports that writing the session file works again
// after a SessionWriteError and that the held entries were written.
type SessionWriteRecovered struct {
	SessionFile string `json:"sessionFile"`
}

// EventType implements Event.
func (SessionWriteError) EventType() string { return "session_write_error" }

// EventType implements Event.
func (SessionWriteRecovered) EventType() string { return "session_write_recovered" }
