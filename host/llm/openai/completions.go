package openai

import (
	"context"
	"fmt"
	"net/http"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

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
	// The SDK makes the request (authentication, headers, errors) and
	// parses the event stream; the events are decoded into the lean
	// chunk type (see chunk.go) rather than the SDK's ChatCompletionChunk.
	var raw *http.Response
	sdkStream := svc.NewStreaming(ctx, params, option.WithResponseInto(&raw))
	defer sdkStream.Close()
	var err error
	if err = sdkStream.Err(); err == nil {
		stream := ssestream.NewStream[chunk](ssestream.NewDecoder(raw), nil)
		defer stream.Close()
		err = consumeCompletions(stream, b)
	}
	if err != nil {
		err = convertError(err)
	}
	return llm.RedactError(err, secrets(req)...)
}

type chunkStream interface {
	Next() bool
	Current() chunk
	Err() error
}

type toolSlot struct {
	idx int
	id  string
}

func consumeCompletions(stream chunkStream, b *llm.Builder) error {
	text, thinking := -1, -1
	tools := map[number]*toolSlot{}
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
			b.SetResponseID(string(ch.ID))
			idSet = true
		}
		if u := ch.Usage; u != nil && u.PromptTokens != nil {
			cached := int(u.PromptTokensDetails.CachedTokens)
			b.SetUsage(llm.Usage{
				Input: int(*u.PromptTokens) - cached, CacheRead: cached, Output: int(u.CompletionTokens),
			})
		}
		for _, choice := range ch.Choices {
			if choice.Index != 0 {
				continue
			}
			d := &choice.Delta
			if r := d.reasoning(); r != "" {
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
				b.Delta(text, string(d.Content))
			}
			if d.Refusal != "" {
				closeThinking()
				if text < 0 {
					text = b.StartText()
				}
				b.Delta(text, string(d.Refusal))
			}
			for _, tc := range d.ToolCalls {
				slot := tools[tc.Index]
				if slot == nil || (tc.ID != "" && slot.id != "" && string(tc.ID) != slot.id) {
					closeText()
					closeThinking()
					closeTool()
					id := string(tc.ID)
					if id == "" {
						id = fmt.Sprintf("call_%d", tc.Index)
					}
					slot = &toolSlot{idx: b.StartToolCall(id, string(tc.Function.Name)), id: string(tc.ID)}
					tools[tc.Index] = slot
					lastTool = slot
				}
				b.Delta(slot.idx, string(tc.Function.Arguments))
			}
			if choice.FinishReason != "" {
				finished = true
				switch choice.FinishReason {
				case "length":
					b.SetStopReason(llm.StopLength)
				case "tool_calls", "function_call":
					b.SetStopReason(llm.StopToolUse)
				case "content_filter":
					return &llm.APIError{Message: "The response was blocked by the provider's content filter (finish_reason: content_filter)", Refused: true}
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
