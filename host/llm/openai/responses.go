package openai

import (
	"context"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3/responses"

	"github.com/atomic-go/atomic/host/llm"
)

// Responses streams from the Responses API.
type Responses struct {
	HTTPClient *http.Client // nil: llm.HTTPClient
}

// NewResponses returns the openai-responses provider.
func NewResponses() *Responses { return &Responses{} }

// Stream implements llm.Provider.
func (p *Responses) Stream(ctx context.Context, req *llm.Request, b *llm.Builder) error {
	params := buildResponsesParams(req)
	svc := responses.NewResponseService(requestOptions(req, p.HTTPClient)...)
	stream := svc.NewStreaming(ctx, params)
	defer stream.Close()
	err := consumeResponses(stream, b)
	if err != nil {
		err = convertError(err)
	}
	return llm.RedactError(err, secrets(req)...)
}

type responseStream interface {
	Next() bool
	Current() responses.ResponseStreamEventUnion
	Err() error
}

type itemState struct {
	idx      int
	kind     string
	summary  int64 // last reasoning summary index seen
	hasDelta bool
}

func consumeResponses(stream responseStream, b *llm.Builder) error {
	items := map[int64]*itemState{}
	done := false
	hasTools := false
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.created", "response.in_progress":
			if ev.Response.ID != "" {
				b.SetResponseID(ev.Response.ID)
			}
		case "response.output_item.added":
			it := ev.Item
			var st *itemState
			switch it.Type {
			case "reasoning":
				st = &itemState{idx: b.StartThinking(), kind: it.Type, summary: -1}
			case "message":
				st = &itemState{idx: b.StartText(), kind: it.Type}
			case "function_call":
				id := it.CallID
				if it.ID != "" {
					id += "|" + it.ID
				}
				st = &itemState{idx: b.StartToolCall(id, it.Name), kind: it.Type}
				hasTools = true
			default:
				continue
			}
			items[ev.OutputIndex] = st
		case "response.reasoning_summary_part.added":
			if st := items[ev.OutputIndex]; st != nil && st.kind == "reasoning" {
				if st.summary >= 0 && ev.SummaryIndex != st.summary {
					b.Delta(st.idx, "\n\n")
				}
				st.summary = ev.SummaryIndex
			}
		case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
			if st := items[ev.OutputIndex]; st != nil && st.kind == "reasoning" {
				b.Delta(st.idx, ev.Delta)
				st.hasDelta = true
			}
		case "response.output_text.delta", "response.refusal.delta":
			if st := items[ev.OutputIndex]; st != nil && st.kind == "message" {
				b.Delta(st.idx, ev.Delta)
				st.hasDelta = true
			}
		case "response.function_call_arguments.delta":
			if st := items[ev.OutputIndex]; st != nil && st.kind == "function_call" {
				b.Delta(st.idx, ev.Delta)
				st.hasDelta = true
			}
		case "response.output_item.done":
			st := items[ev.OutputIndex]
			if st == nil {
				continue
			}
			it := ev.Item
			switch st.kind {
			case "reasoning":
				if raw := it.RawJSON(); raw != "" {
					b.SetSignature(st.idx, raw)
				}
				if !st.hasDelta {
					var parts []string
					for _, s := range it.Summary {
						parts = append(parts, s.Text)
					}
					if len(parts) > 0 {
						b.Delta(st.idx, strings.Join(parts, "\n\n"))
					}
				}
			case "message":
				if it.ID != "" {
					b.SetSignature(st.idx, it.ID)
				}
				if !st.hasDelta {
					for _, c := range it.Content {
						b.Delta(st.idx, c.Text+c.Refusal)
					}
				}
			case "function_call":
				if !st.hasDelta {
					b.Delta(st.idx, it.Arguments.OfString)
				}
			}
			b.End(st.idx)
		case "response.completed", "response.incomplete":
			done = true
			setResponseUsage(b, &ev.Response)
			switch {
			case ev.Type == "response.incomplete" || ev.Response.Status == "incomplete":
				if r := ev.Response.IncompleteDetails.Reason; r != "" && r != "max_output_tokens" {
					return &llm.APIError{Message: "The response is incomplete: " + r}
				}
				b.SetStopReason(llm.StopLength)
			case hasTools:
				b.SetStopReason(llm.StopToolUse)
			default:
				b.SetStopReason(llm.StopStop)
			}
		case "response.failed":
			setResponseUsage(b, &ev.Response)
			e := ev.Response.Error
			msg := e.Message
			if msg == "" {
				msg = "the response failed"
			}
			if e.Code != "" {
				msg = string(e.Code) + ": " + msg
			}
			return &llm.APIError{Status: statusOfCode(string(e.Code)), Message: msg}
		case "error":
			msg := ev.Message
			if ev.Code != "" {
				msg = ev.Code + ": " + msg
			}
			return &llm.APIError{Status: statusOfCode(ev.Code), Message: msg}
		}
	}
	if err := stream.Err(); err != nil {
		return err
	}
	if !done {
		return llm.StreamCut()
	}
	return nil
}

// statusOfCode gives an error code of the Responses API the HTTP status
// the same failure has as a response, for retry classification.
func statusOfCode(code string) int {
	switch {
	case strings.Contains(code, "rate_limit"):
		return 429
	case strings.Contains(code, "overloaded"), strings.Contains(code, "unavailable"):
		return 503
	case code == "server_error" || code == "internal_error":
		return 500
	}
	return 0
}

func setResponseUsage(b *llm.Builder, r *responses.Response) {
	if !r.JSON.Usage.Valid() {
		return
	}
	u := r.Usage
	cached := int(u.InputTokensDetails.CachedTokens)
	b.SetUsage(llm.Usage{Input: int(u.InputTokens) - cached, CacheRead: cached, Output: int(u.OutputTokens)})
}
