package llm

import "encoding/json"

// NestedCall is one call a tool made to another tool while it ran (pi
// 1.6's ctx.executeTool), as recorded on the calling tool's result
// message: no result, and no arguments when they were too large to keep
// (ArgumentsBytes is then their size).
type NestedCall struct {
	ID             string         `json:"id"`
	Name           string         `json:"name"`
	Arguments      map[string]any `json:"arguments,omitempty"`
	ArgumentsBytes int            `json:"argumentsBytes,omitempty"`
	Status         string         `json:"status"` // ok, error, unfinished
	DurationMs     *int64         `json:"durationMs,omitempty"`
	Error          string         `json:"error,omitempty"`
}

// NestedCalls is pi 1.6's nestedCalls record of a tool result message;
// Complete is false when calls or arguments were left out, or a call did
// not finish.
type NestedCalls struct {
	Calls    []NestedCall `json:"calls"`
	Complete bool         `json:"complete"`
}

// NestedCalls returns the record of the calls the tool made to other
// tools, if the message is a tool result that has one.
func (m *Message) NestedCalls() (NestedCalls, bool) {
	var nc NestedCalls
	raw, ok := m.Extra["nestedCalls"]
	if m.Role != RoleToolResult || !ok || json.Unmarshal(raw, &nc) != nil {
		return NestedCalls{}, false
	}
	return nc, len(nc.Calls) > 0 || !nc.Complete
}
