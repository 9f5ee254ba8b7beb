package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/atomic-go/atomic/host/llm"
)

// streamFromExtension is the provider of the models whose provider an
// extension streams itself (pi's streamSimple): the request goes to the
// extension on a tool call's path (extensions.ProviderStreamer), and each
// of pi-ai's stream events it sends back is fed to the Builder. A
// cancelled ctx ends the extension's stream (the signal of its options);
// an extension that sends nothing for httpIdleTimeoutMs fails the request
// as a provider that goes silent does (a connection error, retried).
func (rt *Runtime) streamFromExtension(ctx context.Context, req *llm.Request, b *llm.Builder) error {
	m := req.Model
	if rt.ext.mgr == nil {
		return fmt.Errorf("model %s/%s: no extension streams provider %s", m.Provider, m.ID, m.Provider)
	}
	streamer, path, ok := rt.ext.mgr.ProviderStream(m.Provider)
	if !ok {
		return fmt.Errorf("model %s/%s: no extension streams provider %s (was it unregistered?)", m.Provider, m.ID, m.Provider)
	}
	options := map[string]any{"sessionId": req.SessionID}
	if req.APIKey != "" {
		options["apiKey"] = req.APIKey
	}
	if len(req.Headers) > 0 {
		options["headers"] = req.Headers
	}
	if req.ThinkingLevel != "" && req.ThinkingLevel != llm.ThinkingOff {
		options["reasoning"] = req.ThinkingLevel
	}
	if m.MaxTokens > 0 {
		options["maxTokens"] = m.MaxTokens
	}
	tools := req.Tools
	if tools == nil {
		tools = []llm.ToolSpec{}
	}
	request := map[string]any{
		"model":   m,
		"context": map[string]any{"systemPrompt": req.SystemPrompt, "messages": req.Messages, "tools": tools},
		"options": options,
	}

	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var idle *llm.IdleError
	var timer *time.Timer
	if d := llm.IdleTimeout(); d > 0 {
		idle = &llm.IdleError{After: d}
		timer = time.AfterFunc(d, func() { cancel(idle) })
		defer timer.Stop()
	}
	f := &extFeed{b: b, blocks: map[int]int{}}
	res, err := streamer.StreamProvider(cctx, m.Provider, request, func(partial llm.ToolResult) {
		if timer != nil {
			timer.Reset(idle.After)
		}
		f.event(partial.Details)
	})
	if idle != nil && errors.Is(context.Cause(cctx), idle) && ctx.Err() == nil {
		return idle
	}
	if err != nil {
		rt.log.Info("an extension's provider stream failed", "extension", path, "provider", m.Provider, "err", err)
		return err
	}
	return f.finish(ctx, res.Details)
}

// extEvent is one of pi-ai's AssistantMessageEvents as the extension
// sends it (without its partial message).
type extEvent struct {
	Type         string  `json:"type"`
	ContentIndex int     `json:"contentIndex"`
	Delta        string  `json:"delta"`
	Content      *string `json:"content"`
	ID           string  `json:"id"`
	ToolName     string  `json:"toolName"`
	ToolCall     *struct {
		Arguments map[string]any `json:"arguments"`
	} `json:"toolCall"`
	Reason  string          `json:"reason"`
	Message json.RawMessage `json:"message"`
	Error   json.RawMessage `json:"error"`
}

// extFeed turns the events into the Builder's calls; the extension's
// content indexes map to the Builder's blocks.
type extFeed struct {
	mu     sync.Mutex
	b      *llm.Builder
	blocks map[int]int // the extension's content index -> the Builder's
	seen   bool        // a content event came
	final  json.RawMessage
	failed bool
}

func (f *extFeed) event(details any) {
	raw, err := json.Marshal(details)
	if err != nil {
		return
	}
	var ev extEvent
	if json.Unmarshal(raw, &ev) != nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	idx, open := f.blocks[ev.ContentIndex]
	switch ev.Type {
	case "text_start", "thinking_start", "toolcall_start":
		f.seen = true
		switch ev.Type {
		case "text_start":
			idx = f.b.StartText()
		case "thinking_start":
			idx = f.b.StartThinking()
		default:
			idx = f.b.StartToolCall(ev.ID, ev.ToolName)
		}
		f.blocks[ev.ContentIndex] = idx
	case "text_delta", "thinking_delta", "toolcall_delta":
		if open {
			f.b.Delta(idx, ev.Delta)
		}
	case "text_end", "thinking_end":
		if open {
			f.b.End(idx)
		}
	case "toolcall_end":
		if open {
			if ev.ToolCall != nil {
				f.b.SetToolArguments(idx, ev.ToolCall.Arguments)
			}
			f.b.End(idx)
		}
	case "done":
		f.final = ev.Message
	case "error":
		f.final, f.failed = ev.Error, true
	}
}

// finalMessage is what the agent reads of the extension's final message.
type finalMessage struct {
	Content      llm.Content `json:"content"`
	Usage        *llm.Usage  `json:"usage"`
	StopReason   string      `json:"stopReason"`
	ErrorMessage string      `json:"errorMessage"`
	ResponseID   string      `json:"responseId"`
}

// finish reads the final message (the stream's done or error event, else
// the result): usage, stop reason, an error; a stream that sent no
// content events has its message's content replayed.
func (f *extFeed) finish(ctx context.Context, result any) error {
	f.mu.Lock()
	raw, failed, seen := f.final, f.failed, f.seen
	f.mu.Unlock()
	if len(raw) == 0 && result != nil {
		raw, _ = json.Marshal(result)
	}
	var msg finalMessage
	if len(raw) == 0 || string(raw) == "null" || json.Unmarshal(raw, &msg) != nil {
		return errors.New("the extension's stream ended without a done or error event")
	}
	if !seen {
		for _, blk := range msg.Content.Blocks {
			switch blk.Type {
			case llm.BlockText:
				i := f.b.StartText()
				f.b.Delta(i, blk.Text)
				f.b.End(i)
			case llm.BlockThinking:
				i := f.b.StartThinking()
				f.b.Delta(i, blk.Thinking)
				f.b.End(i)
			case llm.BlockToolCall:
				i := f.b.StartToolCall(blk.ID, blk.Name)
				f.b.SetToolArguments(i, blk.Arguments)
				f.b.End(i)
			}
		}
	}
	if msg.Usage != nil {
		f.b.SetUsage(*msg.Usage)
	}
	if msg.ResponseID != "" {
		f.b.SetResponseID(msg.ResponseID)
	}
	if failed || msg.StopReason == llm.StopError || msg.StopReason == llm.StopAborted {
		if msg.StopReason == llm.StopAborted || ctx.Err() != nil {
			return context.Canceled
		}
		text := msg.ErrorMessage
		if text == "" {
			text = "the extension's provider failed"
		}
		return errors.New(text)
	}
	if msg.StopReason != "" {
		f.b.SetStopReason(msg.StopReason)
	}
	return nil
}
