package app

import (
	"github.com/atomic-go/atomic/host/llm"
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
		SessionFile: rt.sess.Path(), SessionID: rt.sess.ID(), SessionName: rt.sess.Name(),
		AutoCompactionEnabled: rt.autoCompact, MessageCount: rt.messageCountLocked(),
		PendingMessageCount: len(rt.steering) + len(rt.followUp),
		ResourceOverlaps:    []any{},
	}
	if rt.model != nil {
		m := *rt.model
		st.Model = &m
	}
	return st
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
