package sdk

import "encoding/json"

// The event names (EventToolCall, ...), the event payloads and handler
// results (SessionStartEvent, ToolCallEvent, ToolCallResult,
// ToolResultPatch, ...) and Block are generated from the protocol's
// schema, proto/atomic/plugin/v1/events.proto, into payloads.gen.go. This
// file has what is not generated: helpers on those types, and the
// free-form values they hold (Message, Model, ToolOutput).

// TextBlock returns a text block.
func TextBlock(s string) Block { return Block{Type: "text", Text: s} }

// Message is an agent message as JSON (user, assistant, toolResult,
// custom, bashExecution...). Its shape is the protocol's AgentMessage.
type Message map[string]any

// Role returns the message's role.
func (m Message) Role() string { s, _ := m["role"].(string); return s }

// Text joins the text of the message's content.
func (m Message) Text() string {
	switch c := m["content"].(type) {
	case string:
		return c
	case []any:
		out := ""
		for _, b := range c {
			if bm, ok := b.(map[string]any); ok && bm["type"] == "text" {
				s, _ := bm["text"].(string)
				out += s
			}
		}
		return out
	}
	return ""
}

// CancelResult is the result of session_before_switch and
// session_before_fork (the larger of the two, which the switch reads only
// cancel of).
type CancelResult = SessionBeforeForkResult

// StringInput returns a string argument ("" when absent).
func (e *ToolCallEvent) StringInput(key string) string {
	s, _ := e.Input[key].(string)
	return s
}

// Model is the protocol's Model object (the fields most extensions need;
// the rest stay in the JSON).
type Model struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	API           string   `json:"api"`
	Provider      string   `json:"provider"`
	Reasoning     bool     `json:"reasoning"`
	Input         []string `json:"input"`
	ContextWindow int      `json:"contextWindow"`
	MaxTokens     int      `json:"maxTokens"`
}

// ToolOutput is a tool's (partial) result.
type ToolOutput struct {
	Content []Block `json:"content"`
	Details any     `json:"details,omitempty"`
	// Terminate asks the agent to end the run after the current batch of
	// tool calls (when every result of the batch asks so).
	Terminate bool `json:"terminate,omitempty"`
}

// TextOutput returns a result with one text block.
func TextOutput(s string) ToolOutput { return ToolOutput{Content: []Block{TextBlock(s)}} }

// Completion is one argument completion of a command.
type Completion struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// raw decodes JSON into a fresh T.
func decode[T any](raw json.RawMessage) (*T, error) {
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, err
	}
	return v, nil
}
