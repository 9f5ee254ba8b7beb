// Package openai implements the "openai-completions" (Chat Completions, and
// every OpenAI-compatible server: Ollama, llama.cpp, vLLM, OpenRouter,
// Groq, …) and "openai-responses" APIs over the official SDK
// (github.com/openai/openai-go/v3).
package openai

import (
	"errors"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/atomic-go/atomic/host/llm"
)

// API names this package implements.
const (
	APICompletions = llm.APIOpenAICompletions
	APIResponses   = llm.APIOpenAIResponses
)

// DefaultBaseURL is used when a model has none.
const DefaultBaseURL = "https://api.openai.com/v1"

// requestOptions builds the SDK options of one request. The SDK's own
// retries are off (the session retries, with events) and no OPENAI_*
// environment variable is consulted: the key comes from the request only.
func requestOptions(req *llm.Request, hc *http.Client) []option.RequestOption {
	hc = llm.HookedClient(hc, req)
	base := strings.TrimRight(req.Model.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	opts := []option.RequestOption{
		option.WithHTTPClient(hc),
		option.WithBaseURL(base + "/"),
		option.WithMaxRetries(0),
	}
	if req.APIKey != "" {
		opts = append(opts, option.WithAPIKey(req.APIKey))
	}
	for k, v := range req.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return opts
}

func secrets(req *llm.Request) []string {
	out := []string{req.APIKey}
	for _, v := range req.Headers {
		out = append(out, v)
	}
	return out
}

// isOpenAI reports whether the model talks to OpenAI itself (rather than a
// compatible server), which decides defaults of the compat options.
func isOpenAI(m *llm.Model) bool {
	return m.BaseURL == "" || strings.Contains(m.BaseURL, "api.openai.com")
}

// convertError turns SDK errors into llm.APIError with the service's own
// error text.
func convertError(err error) error {
	var ae *sdk.Error
	if errors.As(err, &ae) {
		msg := strings.TrimSpace(ae.Message)
		if msg == "" {
			msg = strings.TrimSpace(ae.RawJSON())
		}
		if msg == "" && ae.Response != nil {
			// The SDK keeps the body only when it is an error object;
			// a bare status is what some servers send.
			msg = "(no body)"
		}
		if ae.Code != "" && !strings.Contains(msg, ae.Code) {
			msg += " (" + ae.Code + ")"
		}
		out := &llm.APIError{Status: ae.StatusCode, Message: msg}
		if ae.Response != nil {
			out.RetryAfter = llm.ParseRetryAfter(ae.Response.Header.Get)
		}
		return out
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		return &llm.APIError{Message: se.Message}
	}
	return llm.TransportError(err)
}

// effort maps a thinking level to a reasoning_effort value; the compat
// option reasoningEffortMap ({"minimal":"low",…}) overrides it.
func effort(m *llm.Model, level string) string {
	if mp, ok := m.Compat["reasoningEffortMap"].(map[string]any); ok {
		if v, ok := mp[level].(string); ok {
			return v
		}
	}
	return level
}
