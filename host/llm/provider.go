package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// ToolSpec is a tool as offered to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one provider call. Messages hold only user, assistant and
// toolResult messages (agent-level messages are converted before).
type Request struct {
	Model         Model             `json:"model"`
	SystemPrompt  string            `json:"systemPrompt"`
	Messages      []Message         `json:"messages"`
	Tools         []ToolSpec        `json:"tools,omitempty"`
	ThinkingLevel string            `json:"thinkingLevel,omitempty"`
	APIKey        string            `json:"-"`
	Headers       map[string]string `json:"-"`
	SessionID     string            `json:"sessionId,omitempty"`
	// ThinkingBudgets overrides the token budgets of budget-based thinking
	// per level (settings "thinkingBudgets").
	ThinkingBudgets map[string]int `json:"-"`
	// Hooks, when set, see and change the request on the wire (the
	// extensions' provider events).
	Hooks *ProviderHooks `json:"-"`
}

// Provider streams one assistant response for a request. It reports every
// delta through the Builder and returns when the response is complete; a
// returned error (or a cancelled ctx) ends the message as an error (or
// abort). Implementations must be safe for concurrent use.
type Provider interface {
	Stream(ctx context.Context, req *Request, b *Builder) error
}

// ProviderFunc adapts a function to Provider.
type ProviderFunc func(ctx context.Context, req *Request, b *Builder) error

// Stream implements Provider.
func (f ProviderFunc) Stream(ctx context.Context, req *Request, b *Builder) error {
	return f(ctx, req, b)
}

// APIError is a provider error with the HTTP status it came with (0 when
// none), so that retry and overflow detection can classify it.
type APIError struct {
	Status     int
	Message    string
	RetryAfter float64 // seconds, from a Retry-After header; 0 when absent
	// Refused marks a refusal: the model declined to answer (Anthropic's
	// stop_reason "refusal") or the provider's safety filter blocked the
	// response (OpenAI's content_filter, Gemini's safety reasons). The
	// message ends as an error, with Message.Refused set.
	Refused bool
}

func (e *APIError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%d %s", e.Status, e.Message)
	}
	return e.Message
}

// StatusOf returns the HTTP status carried by err, or 0.
func StatusOf(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}
