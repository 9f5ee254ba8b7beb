package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/atomic-go/atomic/host/llm"
)

// Completions streams from the Chat Completions API.
type Completions struct {
	HTTPClient *http.Client // nil: llm.HTTPClient
}

// NewCompletions returns the openai-completions provider.
func NewCompletions() *Completions { return &Completions{} }

// Stream implements llm.Provider.
func (p *Completions) Stream(ctx context.Context, req *llm.Request, b *llm.Builder) error {
	params, extra := buildCompletionParams(req)
	opts := requestOptions(req, p.HTTPClient)
	for k, v := range extra {
		opts = append(opts, option.WithJSONSet(k, v))
	}
	svc := sdk.NewChatCompletionService(opts...)
	stream := svc.NewStreaming(ctx, params)
	defer stream.Close()
	err := consumeCompletions(stream, b)
	if err != nil {
		err = convertError(err)
	}
	return llm.RedactError(err, secrets(req)...)
}

type chunkStream interface {
	Next() bool
	Current() sdk.ChatCompletionChunk
	Err() error
}

// reasoningFields are the delta fields compatible servers use for
// reasoning text (llama.cpp, vLLM and DeepSeek: reasoning_content; Ollama,
// OpenRouter and Groq: reasoning).
var reasoningFields = []string{"reasoning_content", "reasoning", "reasoning_text"}

type toolSlot struct {
	idx int
	id  string
}

func consumeCompletions(stream chunkStream, b *llm.Builder) error {
	text, thinking := -1, -1
	tools := map[int64]*toolSlot{}
	var lastTool *toolSlot
	closeTool := func() {
		if lastTool != nil {
			b.End(lastTool.idx)
			lastTool = nil
		}
	}
	finished, gotAny, idSet := false, false, false
	closeText := func() {
		if text >= 0 {
			b.End(text)
			text = -1
		}
	}
	closeThinking := func() {
		if thinking >= 0 {
			b.End(thinking)
			thinking = -1
		}
	}
	for stream.Next() {
		gotAny = true
		ch := stream.Current()
		if ch.ID != "" && !idSet {
			b.SetResponseID(ch.ID)
			idSet = true
		}
		if ch.JSON.Usage.Valid() && ch.Usage.JSON.PromptTokens.Valid() {
			u := ch.Usage
			cached := int(u.PromptTokensDetails.CachedTokens)
			b.SetUsage(llm.Usage{
				Input: int(u.PromptTokens) - cached, CacheRead: cached, Output: int(u.CompletionTokens),
			})
		}
		for _, choice := range ch.Choices {
			if choice.Index != 0 {
				continue
			}
			d := choice.Delta
			if r := reasoningDelta(&d); r != "" {
				closeText()
				if thinking < 0 {
					thinking = b.StartThinking()
				}
				b.Delta(thinking, r)
			}
			if d.Content != "" {
				closeThinking()
				closeTool()
				if text < 0 {
					text = b.StartText()
				}
				b.Delta(text, d.Content)
			}
			if d.Refusal != "" {
				closeThinking()
				if text < 0 {
					text = b.StartText()
				}
				b.Delta(text, d.Refusal)
			}
			for _, tc := range d.ToolCalls {
				slot := tools[tc.Index]
				if slot == nil || (tc.ID != "" && slot.id != "" && tc.ID != slot.id) {
					closeText()
					closeThinking()
					closeTool()
					id := tc.ID
					if id == "" {
						id = fmt.Sprintf("call_%d", tc.Index)
					}
					slot = &toolSlot{idx: b.StartToolCall(id, tc.Function.Name), id: tc.ID}
					tools[tc.Index] = slot
					lastTool = slot
				}
				b.Delta(slot.idx, tc.Function.Arguments)
			}
			if choice.FinishReason != "" {
				finished = true
				switch choice.FinishReason {
				case "length":
					b.SetStopReason(llm.StopLength)
				case "tool_calls", "function_call":
					b.SetStopReason(llm.StopToolUse)
				case "content_filter":
					return &llm.APIError{Message: "The response was blocked by the provider's content filter (finish_reason: content_filter)"}
				default:
					b.SetStopReason(llm.StopStop)
				}
			}
		}
	}
	if err := stream.Err(); err != nil {
		return err
	}
	if !finished {
		if !gotAny {
			return &llm.APIError{Message: "terminated: the server sent no response"}
		}
		return llm.StreamCut()
	}
	closeText()
	closeThinking()
	closeTool()
	return nil
}

func reasoningDelta(d *sdk.ChatCompletionChunkChoiceDelta) string {
	for _, f := range reasoningFields {
		field, ok := d.JSON.ExtraFields[f]
		if !ok {
			continue
		}
		raw := field.Raw()
		if raw == "" || raw == "null" {
			continue
		}
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}
