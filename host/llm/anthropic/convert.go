package anthropic

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/atomic-go/atomic/host/llm"
)

// adaptiveModel matches the models that think adaptively with an effort
// setting instead of a token budget.
var adaptiveModel = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`claude-(opus|sonnet|haiku|fable|mythos)-(4-[6-9]|[5-9])`)
})

// thinkingMode says how the model's thinking is configured: "adaptive",
// "budget", or "" for none. The compat option "thinkingFormat"
// ("anthropic-adaptive" / "anthropic-budget") overrides the guess from the id.
func thinkingMode(m *llm.Model) string {
	if !m.Reasoning {
		return ""
	}
	switch m.CompatString("thinkingFormat") {
	case "anthropic-adaptive", "adaptive":
		return "adaptive"
	case "anthropic-budget", "budget":
		return "budget"
	}
	if adaptiveModel().MatchString(m.ID) {
		return "adaptive"
	}
	return "budget"
}

func effortFor(level string) sdk.OutputConfigEffort {
	switch level {
	case llm.ThinkingMinimal, llm.ThinkingLow:
		return sdk.OutputConfigEffortLow
	case llm.ThinkingMedium:
		return sdk.OutputConfigEffortMedium
	case llm.ThinkingXHigh:
		return sdk.OutputConfigEffortXhigh
	case llm.ThinkingMax:
		return sdk.OutputConfigEffortMax
	}
	return sdk.OutputConfigEffortHigh
}

// defaultMaxOutput caps max_tokens when no thinking budget needs more.
const defaultMaxOutput = 32000

// buildParams turns a request into the Messages API parameters. It
// returns the beta features the request needs.
func buildParams(req *llm.Request) (sdk.MessageNewParams, []string) {
	m := &req.Model
	maxTokens := m.MaxTokens
	if maxTokens <= 0 {
		maxTokens = llm.DefaultMaxTokens
	}
	out := min(maxTokens, defaultMaxOutput)
	p := sdk.MessageNewParams{Model: sdk.Model(m.ID)}
	var betas []string
	level := req.ThinkingLevel
	switch mode := thinkingMode(m); {
	case mode == "" || level == "" || level == llm.ThinkingOff:
	case mode == "adaptive":
		p.Thinking = sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{}}
		p.OutputConfig = sdk.OutputConfigParam{Effort: effortFor(level)}
	default:
		budget := req.ThinkingBudget(level)
		if budget+4096 > out {
			out = min(maxTokens, budget+4096)
		}
		if budget >= out {
			budget = out - 1024
		}
		if budget >= 1024 {
			p.Thinking = sdk.ThinkingConfigParamOfEnabled(int64(budget))
			betas = append(betas, "interleaved-thinking-2025-05-14")
		}
	}
	p.MaxTokens = int64(out)
	caching := m.CompatBool("supportsCaching", true)
	if strings.TrimSpace(req.SystemPrompt) != "" {
		sys := sdk.TextBlockParam{Text: req.SystemPrompt}
		if caching {
			sys.CacheControl = sdk.NewCacheControlEphemeralParam()
		}
		p.System = []sdk.TextBlockParam{sys}
	}
	p.Messages = convertMessages(req)
	if caching {
		markLastForCache(p.Messages)
	}
	for _, t := range req.Tools {
		schema := t.ToolParameters()
		in := sdk.ToolInputSchemaParam{Properties: schema["properties"]}
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					in.Required = append(in.Required, s)
				}
			}
		}
		extra := map[string]any{}
		for k, v := range schema {
			if k != "type" && k != "properties" && k != "required" {
				extra[k] = v
			}
		}
		if len(extra) > 0 {
			in.ExtraFields = extra
		}
		tool := sdk.ToolParam{Name: t.Name, InputSchema: in}
		if t.Description != "" {
			tool.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: &tool})
	}
	return p, betas
}

func toolID(id string) string { return llm.SanitizeToolCallID(id, 64) }

// convertMessages maps user, assistant and toolResult messages to the
// Messages API. Consecutive tool results share one user message, as the
// API requires.
func convertMessages(req *llm.Request) []sdk.MessageParam {
	var out []sdk.MessageParam
	images := req.Model.SupportsImages()
	for i := range req.Messages {
		msg := &req.Messages[i]
		switch msg.Role {
		case llm.RoleUser:
			blocks := userBlocks(msg.Content.Blocks, images)
			if len(blocks) > 0 {
				out = append(out, sdk.NewUserMessage(blocks...))
			}
		case llm.RoleAssistant:
			blocks := assistantBlocks(req, msg)
			if len(blocks) > 0 {
				out = append(out, sdk.NewAssistantMessage(blocks...))
			}
		case llm.RoleToolResult:
			block := toolResultBlock(msg, images)
			if n := len(out); n > 0 && out[n-1].Role == sdk.MessageParamRoleUser && isToolResults(out[n-1]) {
				out[n-1].Content = append(out[n-1].Content, block)
			} else {
				out = append(out, sdk.NewUserMessage(block))
			}
		}
	}
	return out
}

func isToolResults(m sdk.MessageParam) bool {
	for _, c := range m.Content {
		if c.OfToolResult == nil {
			return false
		}
	}
	return len(m.Content) > 0
}

func userBlocks(blocks []llm.ContentBlock, images bool) []sdk.ContentBlockParamUnion {
	var out []sdk.ContentBlockParamUnion
	for _, b := range blocks {
		switch b.Type {
		case llm.BlockText:
			if strings.TrimSpace(b.Text) != "" {
				out = append(out, sdk.NewTextBlock(b.Text))
			}
		case llm.BlockImage:
			if images {
				out = append(out, sdk.NewImageBlockBase64(b.MimeType, b.Data))
			} else {
				out = append(out, sdk.NewTextBlock("(image omitted: this model does not accept images)"))
			}
		}
	}
	return out
}

func assistantBlocks(req *llm.Request, msg *llm.Message) []sdk.ContentBlockParamUnion {
	same := req.SameModel(msg)
	var out []sdk.ContentBlockParamUnion
	for _, b := range msg.Content.Blocks {
		switch b.Type {
		case llm.BlockText:
			if strings.TrimSpace(b.Text) != "" {
				out = append(out, sdk.NewTextBlock(b.Text))
			}
		case llm.BlockThinking:
			switch {
			case same && b.Redacted && b.ThinkingSignature != "":
				out = append(out, sdk.NewRedactedThinkingBlock(b.ThinkingSignature))
			case same && b.ThinkingSignature != "":
				out = append(out, sdk.NewThinkingBlock(b.ThinkingSignature, b.Thinking))
			case !b.Redacted && strings.TrimSpace(b.Thinking) != "":
				// Thinking without a valid signature cannot be sent as
				// thinking; keep what it said as text.
				out = append(out, sdk.NewTextBlock(b.Thinking))
			}
		case llm.BlockToolCall:
			args := b.Arguments
			if args == nil {
				args = map[string]any{}
			}
			out = append(out, sdk.NewToolUseBlock(toolID(b.ID), args, b.Name))
		}
	}
	return out
}

func toolResultBlock(msg *llm.Message, images bool) sdk.ContentBlockParamUnion {
	tr := sdk.ToolResultBlockParam{ToolUseID: toolID(msg.ToolCallID)}
	if msg.IsError {
		tr.IsError = param.NewOpt(true)
	}
	for _, b := range msg.Content.Blocks {
		switch b.Type {
		case llm.BlockText:
			if b.Text != "" {
				tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: b.Text}})
			}
		case llm.BlockImage:
			if images {
				img := sdk.NewImageBlockBase64(b.MimeType, b.Data)
				tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfImage: img.OfImage})
			}
		}
	}
	if len(tr.Content) == 0 {
		tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: "(no output)"}})
	}
	return sdk.ContentBlockParamUnion{OfToolResult: &tr}
}

// markLastForCache puts a cache breakpoint on the last block of the last
// message, so that the whole conversation prefix is cached for the next
// turn.
func markLastForCache(msgs []sdk.MessageParam) {
	if len(msgs) == 0 {
		return
	}
	last := msgs[len(msgs)-1].Content
	for i := len(last) - 1; i >= 0; i-- {
		if cc := last[i].GetCacheControl(); cc != nil {
			*cc = sdk.NewCacheControlEphemeralParam()
			return
		}
	}
}

// marshalArgs renders tool arguments for a delta.
func marshalArgs(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	return string(b)
}
