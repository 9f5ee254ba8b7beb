package google

import (
	"encoding/base64"
	"strings"

	"google.golang.org/genai"

	"github.com/atomic-go/atomic/host/llm"
)

// buildConfig turns the request into the generation config.
func buildConfig(req *llm.Request) *genai.GenerateContentConfig {
	m := &req.Model
	cfg := &genai.GenerateContentConfig{}
	if strings.TrimSpace(req.SystemPrompt) != "" {
		cfg.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: req.SystemPrompt}}}
	}
	if m.MaxTokens > 0 {
		cfg.MaxOutputTokens = int32(m.MaxTokens)
	}
	if m.Reasoning {
		cfg.ThinkingConfig = thinkingConfig(req)
	}
	if len(req.Tools) > 0 {
		var decls []*genai.FunctionDeclaration
		for _, t := range req.Tools {
			decls = append(decls, &genai.FunctionDeclaration{
				Name: t.Name, Description: t.Description, ParametersJsonSchema: t.ToolParameters(),
			})
		}
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	return cfg
}

// thinkingConfig sets thought summaries on and the thinking effort: a
// level for Gemini 3 models, a token budget for earlier ones ("off" turns
// thinking off where the model allows it).
func thinkingConfig(req *llm.Request) *genai.ThinkingConfig {
	level := req.ThinkingLevel
	off := level == "" || level == llm.ThinkingOff
	tc := &genai.ThinkingConfig{IncludeThoughts: !off}
	if strings.HasPrefix(req.Model.ID, "gemini-3") || req.Model.CompatString("thinkingFormat") == "gemini-level" {
		switch level {
		case llm.ThinkingMinimal, llm.ThinkingLow, "", llm.ThinkingOff:
			tc.ThinkingLevel = genai.ThinkingLevelLow
		default:
			tc.ThinkingLevel = genai.ThinkingLevelHigh
		}
		return tc
	}
	var budget int32
	if !off {
		budget = int32(req.ThinkingBudget(level))
		if budget > 32768 {
			budget = 32768
		}
	} else if strings.Contains(req.Model.ID, "pro") {
		budget = 128 // the Pro models cannot turn thinking off
	}
	tc.ThinkingBudget = &budget
	return tc
}

// convertContents maps the conversation to Gemini contents. Tool results
// become functionResponse parts of a user turn (consecutive ones share it).
func convertContents(req *llm.Request) []*genai.Content {
	images := req.Model.SupportsImages()
	var out []*genai.Content
	for i := range req.Messages {
		msg := &req.Messages[i]
		switch msg.Role {
		case llm.RoleUser:
			var parts []*genai.Part
			for _, b := range msg.Content.Blocks {
				switch b.Type {
				case llm.BlockText:
					if b.Text != "" {
						parts = append(parts, &genai.Part{Text: b.Text})
					}
				case llm.BlockImage:
					parts = append(parts, imagePart(b, images))
				}
			}
			if len(parts) > 0 {
				out = append(out, &genai.Content{Role: genai.RoleUser, Parts: parts})
			}
		case llm.RoleAssistant:
			parts := modelParts(req, msg)
			if len(parts) > 0 {
				out = append(out, &genai.Content{Role: genai.RoleModel, Parts: parts})
			}
		case llm.RoleToolResult:
			text, imgs := llm.ResultContent(msg)
			resp := map[string]any{"output": text}
			if msg.IsError {
				resp = map[string]any{"error": text}
			}
			fr := &genai.FunctionResponse{Name: msg.ToolName, Response: resp}
			if id := toolID(msg.ToolCallID); id != "" {
				fr.ID = id
			}
			parts := []*genai.Part{{FunctionResponse: fr}}
			for _, img := range imgs {
				parts = append(parts, imagePart(img, images))
			}
			if n := len(out); n > 0 && out[n-1].Role == genai.RoleUser && out[n-1].Parts[0].FunctionResponse != nil {
				out[n-1].Parts = append(out[n-1].Parts, parts...)
			} else {
				out = append(out, &genai.Content{Role: genai.RoleUser, Parts: parts})
			}
		}
	}
	return out
}

func imagePart(b llm.ContentBlock, images bool) *genai.Part {
	if !images {
		return &genai.Part{Text: "(image omitted: this model does not accept images)"}
	}
	data, err := base64.StdEncoding.DecodeString(b.Data)
	if err != nil {
		return &genai.Part{Text: "(image omitted: invalid base64 data)"}
	}
	return &genai.Part{InlineData: &genai.Blob{MIMEType: b.MimeType, Data: data}}
}

func modelParts(req *llm.Request, msg *llm.Message) []*genai.Part {
	same := req.SameModel(msg)
	var parts []*genai.Part
	for _, b := range msg.Content.Blocks {
		switch b.Type {
		case llm.BlockThinking:
			if b.Redacted || strings.TrimSpace(b.Thinking) == "" {
				continue
			}
			if same {
				parts = append(parts, &genai.Part{Text: b.Thinking, Thought: true, ThoughtSignature: signature(b.ThinkingSignature)})
			} else {
				parts = append(parts, &genai.Part{Text: b.Thinking})
			}
		case llm.BlockText:
			if b.Text == "" {
				continue
			}
			p := &genai.Part{Text: b.Text}
			if same {
				p.ThoughtSignature = signature(b.TextSignature)
			}
			parts = append(parts, p)
		case llm.BlockToolCall:
			args := b.Arguments
			if args == nil {
				args = map[string]any{}
			}
			p := &genai.Part{FunctionCall: &genai.FunctionCall{Name: b.Name, Args: args, ID: toolID(b.ID)}}
			if same {
				p.ThoughtSignature = signature(b.ThoughtSignature)
			}
			parts = append(parts, p)
		}
	}
	return parts
}

// toolID returns the id to send back: ids this package made up for calls
// that had none are not sent.
func toolID(id string) string {
	if strings.HasPrefix(id, generatedIDPrefix) {
		return ""
	}
	return id
}

func signature(s string) []byte {
	if s == "" {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}
