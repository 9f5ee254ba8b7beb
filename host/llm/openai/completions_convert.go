package openai

import (
	"encoding/json"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/atomic-go/atomic/host/llm"
)

// Compat options of models.json that this dialect honours:
//
//	supportsDeveloperRole      system prompt as a "developer" message (default: true for api.openai.com reasoning models)
//	supportsUsageInStreaming   send stream_options.include_usage (default true)
//	maxTokensField             "max_completion_tokens" or "max_tokens" (default: not sent)
//	supportsReasoningEffort    send reasoning_effort (default true)
//	reasoningEffortMap         level -> value sent
//	thinkingFormat             "reasoning_effort" (default), "zai", "qwen", "qwen-chat-template"
//	requiresToolResultName     add "name" to tool messages
//	requiresAssistantAfterToolResult  insert an assistant message between tool results and a user message
//	requiresThinkingAsText     send earlier thinking back as text
//	supportsStore              send store=false (default: api.openai.com only)
//	supportsStrictMode         send strict=false on tools (default: omitted)
func buildCompletionParams(req *llm.Request) (sdk.ChatCompletionNewParams, map[string]any) {
	m := &req.Model
	p := sdk.ChatCompletionNewParams{Model: shared.ChatModel(m.ID)}
	extra := map[string]any{}
	if strings.TrimSpace(req.SystemPrompt) != "" {
		if m.CompatBool("supportsDeveloperRole", isOpenAI(m) && m.Reasoning) {
			p.Messages = append(p.Messages, sdk.DeveloperMessage(req.SystemPrompt))
		} else {
			p.Messages = append(p.Messages, sdk.SystemMessage(req.SystemPrompt))
		}
	}
	p.Messages = append(p.Messages, completionMessages(req)...)
	if m.CompatBool("supportsUsageInStreaming", true) {
		p.StreamOptions = sdk.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)}
	}
	if m.CompatBool("supportsStore", isOpenAI(m)) {
		p.Store = param.NewOpt(false)
	}
	if m.MaxTokens > 0 {
		switch m.CompatString("maxTokensField") {
		case "max_tokens":
			p.MaxTokens = param.NewOpt(int64(m.MaxTokens))
		case "max_completion_tokens":
			p.MaxCompletionTokens = param.NewOpt(int64(m.MaxTokens))
		}
	}
	level := req.ThinkingLevel
	thinking := m.Reasoning && level != "" && level != llm.ThinkingOff
	switch m.CompatString("thinkingFormat") {
	case "zai":
		if m.Reasoning {
			typ := "disabled"
			if thinking {
				typ = "enabled"
			}
			extra["thinking"] = map[string]any{"type": typ}
		}
	case "qwen":
		if m.Reasoning {
			extra["enable_thinking"] = thinking
		}
	case "qwen-chat-template":
		if m.Reasoning {
			extra["chat_template_kwargs"] = map[string]any{"enable_thinking": thinking}
		}
	default:
		if thinking && m.CompatBool("supportsReasoningEffort", true) {
			p.ReasoningEffort = shared.ReasoningEffort(effort(m, level))
		}
	}
	strict, hasStrict := m.Compat["supportsStrictMode"].(bool)
	for _, t := range req.Tools {
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(t.ToolParameters())}
		if t.Description != "" {
			fd.Description = param.NewOpt(t.Description)
		}
		if hasStrict && strict {
			fd.Strict = param.NewOpt(false)
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(fd))
	}
	return p, extra
}

// completionMessages maps the conversation to chat messages. Images in
// tool results cannot go in a tool message, so they follow in a user
// message.
func completionMessages(req *llm.Request) []sdk.ChatCompletionMessageParamUnion {
	m := &req.Model
	images := m.SupportsImages()
	thinkingAsText := m.CompatBool("requiresThinkingAsText", false)
	toolName := m.CompatBool("requiresToolResultName", false)
	assistantAfterTool := m.CompatBool("requiresAssistantAfterToolResult", false)
	var out []sdk.ChatCompletionMessageParamUnion
	var pendingImages []llm.ContentBlock
	lastWasTool := false
	flushImages := func() {
		if len(pendingImages) == 0 {
			return
		}
		parts := []sdk.ChatCompletionContentPartUnionParam{sdk.TextContentPart("Images returned by the tool calls above:")}
		for _, img := range pendingImages {
			parts = append(parts, imagePart(img))
		}
		out = append(out, sdk.UserMessage(parts))
		pendingImages = nil
	}
	for i := range req.Messages {
		msg := &req.Messages[i]
		if msg.Role != llm.RoleToolResult {
			flushImages()
		}
		switch msg.Role {
		case llm.RoleUser:
			if lastWasTool && assistantAfterTool {
				out = append(out, sdk.AssistantMessage("I have processed the tool results."))
			}
			lastWasTool = false
			parts := userParts(msg.Content.Blocks, images)
			if len(parts) == 0 {
				continue
			}
			if len(parts) == 1 && parts[0].OfText != nil {
				out = append(out, sdk.UserMessage(parts[0].OfText.Text))
			} else {
				out = append(out, sdk.UserMessage(parts))
			}
		case llm.RoleAssistant:
			lastWasTool = false
			a := sdk.ChatCompletionAssistantMessageParam{}
			var text []string
			for _, b := range msg.Content.Blocks {
				switch b.Type {
				case llm.BlockText:
					if b.Text != "" {
						text = append(text, b.Text)
					}
				case llm.BlockThinking:
					if thinkingAsText && !b.Redacted && strings.TrimSpace(b.Thinking) != "" {
						text = append(text, b.Thinking)
					}
				case llm.BlockToolCall:
					args, _ := json.Marshal(b.Arguments)
					if b.Arguments == nil {
						args = []byte("{}")
					}
					a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
						OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
							ID: b.ID, Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: string(args)},
						},
					})
				}
			}
			if len(text) > 0 {
				a.Content.OfString = param.NewOpt(strings.Join(text, "\n\n"))
			}
			if len(text) == 0 && len(a.ToolCalls) == 0 {
				continue
			}
			out = append(out, sdk.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case llm.RoleToolResult:
			lastWasTool = true
			text, imgs := llm.ResultContent(msg)
			if text == "" {
				text = "(no output)"
				if len(imgs) > 0 {
					text = "(see the attached image)"
				}
			}
			tm := sdk.ToolMessage(text, msg.ToolCallID)
			if toolName && tm.OfTool != nil {
				tm.OfTool.SetExtraFields(map[string]any{"name": msg.ToolName})
			}
			out = append(out, tm)
			if images {
				pendingImages = append(pendingImages, imgs...)
			}
		}
	}
	flushImages()
	return out
}

func userParts(blocks []llm.ContentBlock, images bool) []sdk.ChatCompletionContentPartUnionParam {
	var parts []sdk.ChatCompletionContentPartUnionParam
	for _, b := range blocks {
		switch b.Type {
		case llm.BlockText:
			if b.Text != "" {
				parts = append(parts, sdk.TextContentPart(b.Text))
			}
		case llm.BlockImage:
			if images {
				parts = append(parts, imagePart(b))
			} else {
				parts = append(parts, sdk.TextContentPart("(image omitted: this model does not accept images)"))
			}
		}
	}
	return parts
}

func imagePart(b llm.ContentBlock) sdk.ChatCompletionContentPartUnionParam {
	return sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: "data:" + b.MimeType + ";base64," + b.Data})
}
