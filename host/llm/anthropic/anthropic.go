// Package anthropic implements the "anthropic-messages" API over the
// official SDK (github.com/anthropics/anthropic-sdk-go): streaming text,
// thinking (with budget or adaptive effort) whose signatures are kept and
// sent back, redacted thinking, tool use with streamed arguments, images,
// and prompt caching.
package anthropic

import (
	"context"
	"errors"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/atomic-go/atomic/host/llm"
)

// API is the API name this package implements.
const API = llm.APIAnthropicMessages

// Provider streams from the Anthropic Messages API.
type Provider struct {
	// HTTPClient, when set, replaces llm.HTTPClient.
	HTTPClient *http.Client
}

// New returns the provider.
func New() *Provider { return &Provider{} }

func (p *Provider) client(req *llm.Request, betas []string) sdk.Client {
	hc := llm.HookedClient(p.HTTPClient, req)
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // the session retries, with events
	}
	if base := strings.TrimRight(req.Model.BaseURL, "/"); base != "" {
		opts = append(opts, option.WithBaseURL(base+"/"))
	}
	if req.APIKey != "" {
		opts = append(opts, option.WithAPIKey(req.APIKey))
	}
	if len(betas) > 0 {
		opts = append(opts, option.WithHeader("anthropic-beta", strings.Join(betas, ",")))
	}
	for k, v := range req.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return sdk.NewClient(opts...)
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request, b *llm.Builder) error {
	params, betas := buildParams(req)
	client := p.client(req, betas)
	stream := client.Messages.NewStreaming(ctx, params)
	defer stream.Close()
	err := consume(stream, b)
	if err != nil {
		err = convertError(err)
	}
	return llm.RedactError(err, secrets(req)...)
}

func secrets(req *llm.Request) []string {
	out := []string{req.APIKey}
	for _, v := range req.Headers {
		out = append(out, v)
	}
	return out
}

type eventStream interface {
	Next() bool
	Current() sdk.MessageStreamEventUnion
	Err() error
}

// consume reads the event stream into the builder.
func consume(stream eventStream, b *llm.Builder) error {
	blocks := map[int64]int{} // API content index -> builder index
	sigs := map[int]*strings.Builder{}
	var usage llm.Usage
	stopped := false
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			u := ev.Message.Usage
			usage = llm.Usage{
				Input: int(u.InputTokens), Output: int(u.OutputTokens),
				CacheRead: int(u.CacheReadInputTokens), CacheWrite: int(u.CacheCreationInputTokens),
			}
			b.SetUsage(usage)
			if ev.Message.ID != "" {
				b.SetResponseID(ev.Message.ID)
			}
		case "content_block_start":
			cb := ev.ContentBlock
			var idx int
			switch cb.Type {
			case "text":
				idx = b.StartText()
				if cb.Text != "" {
					b.Delta(idx, cb.Text)
				}
			case "thinking":
				idx = b.StartThinking()
				if cb.Thinking != "" {
					b.Delta(idx, cb.Thinking)
				}
				sigs[idx] = &strings.Builder{}
				sigs[idx].WriteString(cb.Signature)
			case "redacted_thinking":
				idx = b.StartThinking()
				b.SetRedacted(idx)
				b.SetSignature(idx, cb.Data)
			case "tool_use":
				idx = b.StartToolCall(cb.ID, cb.Name)
				// Arguments normally arrive as input_json_delta; a
				// non-empty input in the start event is complete.
				if m, ok := cb.Input.(map[string]any); ok && len(m) > 0 {
					b.Delta(idx, marshalArgs(m))
				}
			default:
				continue // server tools and other blocks are not ours to show
			}
			blocks[ev.Index] = idx
		case "content_block_delta":
			idx, ok := blocks[ev.Index]
			if !ok {
				continue
			}
			d := ev.Delta
			switch d.Type {
			case "text_delta":
				b.Delta(idx, d.Text)
			case "thinking_delta":
				b.Delta(idx, d.Thinking)
			case "signature_delta":
				if sb := sigs[idx]; sb != nil {
					sb.WriteString(d.Signature)
				}
			case "input_json_delta":
				b.Delta(idx, d.PartialJSON)
			}
		case "content_block_stop":
			idx, ok := blocks[ev.Index]
			if !ok {
				continue
			}
			if sb := sigs[idx]; sb != nil && sb.Len() > 0 {
				b.SetSignature(idx, sb.String())
			}
			b.End(idx)
		case "message_delta":
			u := ev.Usage
			if u.InputTokens > 0 {
				usage.Input = int(u.InputTokens)
			}
			if u.CacheReadInputTokens > 0 {
				usage.CacheRead = int(u.CacheReadInputTokens)
			}
			if u.CacheCreationInputTokens > 0 {
				usage.CacheWrite = int(u.CacheCreationInputTokens)
			}
			if u.OutputTokens > 0 {
				usage.Output = int(u.OutputTokens)
			}
			usage.TotalTokens = 0
			b.SetUsage(usage)
			if r := string(ev.Delta.StopReason); r != "" {
				if err := setStop(b, r); err != nil {
					return err
				}
			}
		case "message_stop":
			stopped = true
		}
	}
	if err := stream.Err(); err != nil {
		return err
	}
	if !stopped {
		return llm.StreamCut()
	}
	return nil
}

func setStop(b *llm.Builder, reason string) error {
	switch reason {
	case "end_turn", "stop_sequence", "pause_turn":
		b.SetStopReason(llm.StopStop)
	case "max_tokens":
		b.SetStopReason(llm.StopLength)
	case "tool_use":
		b.SetStopReason(llm.StopToolUse)
	case "refusal":
		return &llm.APIError{Message: "The model refused to answer (stop_reason: refusal)", Refused: true}
	case "model_context_window_exceeded":
		return &llm.APIError{Message: "model_context_window_exceeded: the conversation exceeds the context window"}
	default:
		b.SetStopReason(llm.StopStop)
	}
	return nil
}

// statusOfErrorType maps the error type of an in-stream error event to the
// HTTP status the same error has as a response.
var statusOfErrorType = map[string]int{
	"invalid_request_error": 400,
	"authentication_error":  401,
	"permission_error":      403,
	"not_found_error":       404,
	"request_too_large":     413,
	"rate_limit_error":      429,
	"api_error":             500,
	"overloaded_error":      529,
}

// convertError turns SDK errors into llm.APIError, keeping the service's
// error body as the message.
func convertError(err error) error {
	var ae *sdk.Error
	if errors.As(err, &ae) {
		status := ae.StatusCode
		body := strings.TrimSpace(ae.RawJSON())
		if status >= 200 && status < 300 {
			// An error event inside a stream that began fine.
			status = statusOfErrorType[string(ae.Type())]
		}
		if body == "" {
			body = http.StatusText(ae.StatusCode)
		}
		out := &llm.APIError{Status: status, Message: body}
		if ae.Response != nil {
			out.RetryAfter = llm.ParseRetryAfter(ae.Response.Header.Get)
		}
		return out
	}
	if strings.HasPrefix(err.Error(), "received error while streaming:") {
		return &llm.APIError{Message: err.Error()}
	}
	return llm.TransportError(err)
}
