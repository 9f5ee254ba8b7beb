package openai

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/atomic-go/atomic/host/llm"
)

// Tool-call ids of this dialect join the call id and the item id:
// "<call_id>|<item_id>", so that both can be sent back.
func splitCallID(id string) (callID, itemID string) {
	callID, itemID, _ = strings.Cut(id, "|")
	return callID, itemID
}

// buildResponsesParams turns a request into Responses API parameters. The
// conversation is sent in full each time (store=false); reasoning items of
// the same model go back with their encrypted content, which is kept in the
// thinking block's signature.
func buildResponsesParams(req *llm.Request) responses.ResponseNewParams {
	m := &req.Model
	p := responses.ResponseNewParams{Model: shared.ResponsesModel(m.ID)}
	if strings.TrimSpace(req.SystemPrompt) != "" {
		p.Instructions = param.NewOpt(req.SystemPrompt)
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: responsesInput(req)}
	if m.CompatBool("supportsStore", true) {
		p.Store = param.NewOpt(false)
	}
	if m.MaxTokens > 0 && m.CompatBool("sendMaxOutputTokens", false) {
		p.MaxOutputTokens = param.NewOpt(int64(m.MaxTokens))
	}
	if req.SessionID != "" && m.CompatBool("supportsPromptCacheKey", isOpenAI(m)) {
		p.PromptCacheKey = param.NewOpt(req.SessionID)
	}
	level := req.ThinkingLevel
	if m.Reasoning && level != "" && level != llm.ThinkingOff {
		p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort(effort(m, level))}
		if m.CompatBool("supportsReasoningSummary", true) {
			p.Reasoning.Summary = shared.ReasoningSummaryAuto
		}
		p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
	}
	for _, t := range req.Tools {
		tool := responses.ToolParamOfFunction(t.Name, t.ToolParameters(), false)
		if t.Description != "" && tool.OfFunction != nil {
			tool.OfFunction.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, tool)
	}
	return p
}

func responsesInput(req *llm.Request) responses.ResponseInputParam {
	images := req.Model.SupportsImages()
	var out responses.ResponseInputParam
	var pendingImages []llm.ContentBlock
	flushImages := func() {
		if len(pendingImages) == 0 {
			return
		}
		content := responses.ResponseInputMessageContentListParam{responses.ResponseInputContentParamOfInputText("Images returned by the tool calls above:")}
		for _, img := range pendingImages {
			content = append(content, inputImage(img))
		}
		out = append(out, responses.ResponseInputItemParamOfMessage(content, responses.EasyInputMessageRoleUser))
		pendingImages = nil
	}
	for i := range req.Messages {
		msg := &req.Messages[i]
		if msg.Role != llm.RoleToolResult {
			flushImages()
		}
		switch msg.Role {
		case llm.RoleUser:
			var content responses.ResponseInputMessageContentListParam
			for _, b := range msg.Content.Blocks {
				switch b.Type {
				case llm.BlockText:
					if b.Text != "" {
						content = append(content, responses.ResponseInputContentParamOfInputText(b.Text))
					}
				case llm.BlockImage:
					if images {
						content = append(content, inputImage(b))
					} else {
						content = append(content, responses.ResponseInputContentParamOfInputText("(image omitted: this model does not accept images)"))
					}
				}
			}
			if len(content) > 0 {
				out = append(out, responses.ResponseInputItemParamOfMessage(content, responses.EasyInputMessageRoleUser))
			}
		case llm.RoleAssistant:
			out = append(out, assistantItems(req, msg)...)
		case llm.RoleToolResult:
			text, imgs := llm.ResultContent(msg)
			if text == "" {
				text = "(no output)"
				if len(imgs) > 0 {
					text = "(see the attached image)"
				}
			}
			callID, _ := splitCallID(msg.ToolCallID)
			item := responses.ResponseInputItemParamOfFunctionCallOutput(text)
			item.OfFunctionCallOutput.CallID = param.NewOpt(callID)
			out = append(out, item)
			if images {
				pendingImages = append(pendingImages, imgs...)
			}
		}
	}
	flushImages()
	return out
}

func inputImage(b llm.ContentBlock) responses.ResponseInputContentUnionParam {
	img := responses.ResponseInputContentParamOfInputImage(responses.ResponseInputImageDetailAuto)
	img.OfInputImage.ImageURL = param.NewOpt("data:" + b.MimeType + ";base64," + b.Data)
	return img
}

func assistantItems(req *llm.Request, msg *llm.Message) []responses.ResponseInputItemUnionParam {
	same := req.SameModel(msg)
	var out []responses.ResponseInputItemUnionParam
	for _, b := range msg.Content.Blocks {
		switch b.Type {
		case llm.BlockThinking:
			if !same || b.ThinkingSignature == "" || !strings.HasPrefix(b.ThinkingSignature, "{") {
				continue
			}
			var item responses.ResponseReasoningItemParam
			if json.Unmarshal([]byte(b.ThinkingSignature), &item) != nil || item.ID == "" {
				continue
			}
			item = param.Override[responses.ResponseReasoningItemParam](json.RawMessage(b.ThinkingSignature))
			out = append(out, responses.ResponseInputItemUnionParam{OfReasoning: &item})
		case llm.BlockText:
			if b.Text == "" {
				continue
			}
			out = append(out, responses.ResponseInputItemParamOfMessage(b.Text, responses.EasyInputMessageRoleAssistant))
		case llm.BlockToolCall:
			args, _ := json.Marshal(b.Arguments)
			if b.Arguments == nil {
				args = []byte("{}")
			}
			callID, itemID := splitCallID(b.ID)
			item := responses.ResponseInputItemParamOfFunctionCall(string(args), callID, b.Name)
			if same && itemID != "" && item.OfFunctionCall != nil {
				item.OfFunctionCall.ID = param.NewOpt(itemID)
			}
			out = append(out, item)
		}
	}
	return out
}
