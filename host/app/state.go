package app

import (
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// State is the get_state view of the runtime.
type State struct {
	Model                 *llm.Model `json:"model,omitempty"`
	ThinkingLevel         string     `json:"thinkingLevel"`
	IsStreaming           bool       `json:"isStreaming"`
	IsCompacting          bool       `json:"isCompacting"`
	SteeringMode          string     `json:"steeringMode"`
	FollowUpMode          string     `json:"followUpMode"`
	SessionFile           string     `json:"sessionFile,omitempty"`
	SessionID             string     `json:"sessionId"`
	SessionName           string     `json:"sessionName,omitempty"`
	AutoCompactionEnabled bool       `json:"autoCompactionEnabled"`
	MessageCount          int        `json:"messageCount"`
	PendingMessageCount   int        `json:"pendingMessageCount"`
	QueuedMessagesPaused  bool       `json:"queuedMessagesPaused"`
	ResourceOverlaps      []any      `json:"resourceOverlaps"`
}

// State returns the current state.
func (rt *Runtime) State() State {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	st := State{
		ThinkingLevel: rt.thinking, IsStreaming: rt.run != nil, IsCompacting: rt.isCompactingLocked(),
		SteeringMode: rt.steeringMode, FollowUpMode: rt.followUpMode,
		SessionID: rt.sess.ID(), SessionName: rt.sess.Name(),
		AutoCompactionEnabled: rt.autoCompact, MessageCount: len(rt.messages),
		PendingMessageCount: len(rt.steering) + len(rt.followUp),
		ResourceOverlaps:    []any{},
	}
	if rt.model != nil {
		m := *rt.model
		st.Model = &m
	}
	return st
}

// NewSession replaces the session with an empty one. It reports whether an
// extension cancelled the switch.
func (rt *Runtime) NewSession(parentSession string) (cancelled bool, err error) {
	rt.Abort()
	rt.qmu.Lock()
	defer rt.qmu.Unlock()
	rt.mu.Lock()
	rt.sess = session.NewInMemory(rt.opts.Cwd)
	rt.messages = nil
	hadQueue := len(rt.steering)+len(rt.followUp) > 0
	rt.steering, rt.followUp = nil, nil
	rt.mu.Unlock()
	if hadQueue {
		rt.Emit(events.QueueUpdate{Steering: []string{}, FollowUp: []string{}})
	}
	return false, nil
}

// SetAutoCompaction turns automatic compaction on or off.
func (rt *Runtime) SetAutoCompaction(on bool) {
	rt.mu.Lock()
	rt.autoCompact = on
	rt.mu.Unlock()
}

// SetAutoRetry turns automatic retry on or off.
func (rt *Runtime) SetAutoRetry(on bool) {
	rt.mu.Lock()
	rt.autoRetry = on
	rt.mu.Unlock()
}
