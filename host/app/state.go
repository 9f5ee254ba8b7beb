package app

import "github.com/atomic-go/atomic/sdk/rpcwire"

// State is the get_state answer.
type State = rpcwire.State

// State returns the current state.
func (rt *Runtime) State() State {
	overlaps := rt.resourceOverlaps()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	qs := rt.queue.status() // under rt.mu: one with the session state
	st := State{
		ThinkingLevel: rt.thinking, IsStreaming: rt.run != nil, IsCompacting: rt.isCompactingLocked(),
		SteeringMode: qs.steeringMode, FollowUpMode: qs.followUpMode,
		SessionFile: rt.sess.Path(), SessionID: rt.sess.ID(), SessionName: rt.sess.Name(),
		AutoCompactionEnabled: rt.autoCompact, MessageCount: rt.messageCountLocked(),
		PendingMessageCount:  qs.pending,
		QueuedMessagesPaused: qs.paused,
		ResourceOverlaps:     overlaps,
	}
	if rt.model != nil {
		m := WireModel(*rt.model)
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
