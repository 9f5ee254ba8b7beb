package llm

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/atomic-go/atomic/internal/netproxy"
)

// HTTPClient is the client the SDK-based providers share: no overall
// timeout (responses stream for minutes), but bounded connection set-up
// and the idle bound of httpIdleTimeoutMs (idleTransport).
var HTTPClient = &http.Client{
	Transport: idleTransport{next: &http.Transport{
		Proxy:                 netproxy.FromRequest,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: 10 * time.Minute,
		ExpectContinueTimeout: time.Second,
	}},
}

// DefaultThinkingBudgets are the token budgets of budget-based thinking.
var DefaultThinkingBudgets = map[string]int{
	ThinkingMinimal: 1024,
	ThinkingLow:     4096,
	ThinkingMedium:  10240,
	ThinkingHigh:    32768,
	ThinkingXHigh:   49152,
	ThinkingMax:     63999,
}

// ThinkingBudget returns the budget for a level (0 for "off").
func (r *Request) ThinkingBudget(level string) int {
	if level == "" || level == ThinkingOff {
		return 0
	}
	if b, ok := r.ThinkingBudgets[level]; ok && b > 0 {
		return b
	}
	return DefaultThinkingBudgets[level]
}

// SameModel reports whether an assistant message was produced by the
// request's model, so that provider-specific state (signatures, encrypted
// reasoning) can be sent back.
func (r *Request) SameModel(m *Message) bool {
	return m.Provider == r.Model.Provider && m.API == r.Model.API && m.Model == r.Model.ID
}

// SanitizeToolCallID makes a tool-call id acceptable to APIs that allow
// only [A-Za-z0-9_-] and at most max characters.
func SanitizeToolCallID(id string, max int) string {
	var sb strings.Builder
	for _, c := range id {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
			sb.WriteRune(c)
		default:
			sb.WriteByte('_')
		}
	}
	s := sb.String()
	if max > 0 && len(s) > max {
		s = s[:max]
	}
	if s == "" {
		s = "call"
	}
	return s
}

// ToolParameters returns a tool's JSON Schema as a map (an empty object
// schema when it has none).
func (t ToolSpec) ToolParameters() map[string]any {
	m := map[string]any{}
	if len(t.Parameters) > 0 {
		_ = json.Unmarshal(t.Parameters, &m)
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	return m
}

// ResultContent returns a tool result's text (joined) and images.
func ResultContent(m *Message) (string, []ContentBlock) {
	var texts []string
	var images []ContentBlock
	for _, b := range m.Content.Blocks {
		switch b.Type {
		case BlockText:
			texts = append(texts, b.Text)
		case BlockImage:
			images = append(images, b)
		}
	}
	return strings.Join(texts, "\n"), images
}
