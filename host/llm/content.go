// Package llm holds the provider-neutral conversation types (messages,
// content blocks, usage, models), the Provider interface every LLM adapter
// implements, and the Builder that turns streamed deltas into one assistant
// message.
package llm

import (
	"encoding/json"
	"fmt"

	"github.com/atomic-go/atomic/internal/jsonscan"
	"github.com/atomic-go/atomic/internal/jsonw"
)

// Content block types.
const (
	BlockText     = "text"
	BlockThinking = "thinking"
	BlockImage    = "image"
	BlockToolCall = "toolCall"
)

// ContentBlock is one block of message content. Which fields are meaningful
// depends on Type: text (Text, TextSignature), thinking (Thinking,
// ThinkingSignature, Redacted), image (Data, MimeType) or toolCall (ID, Name,
// Arguments, ThoughtSignature).
type ContentBlock struct {
	Type string

	Text          string
	TextSignature string

	Thinking          string
	ThinkingSignature string
	Redacted          bool

	Data     string // base64
	MimeType string

	ID               string
	Name             string
	Arguments        map[string]any
	ThoughtSignature string
}

// Text returns a text block.
func Text(s string) ContentBlock { return ContentBlock{Type: BlockText, Text: s} }

// Image returns an image block.
func Image(data, mime string) ContentBlock {
	return ContentBlock{Type: BlockImage, Data: data, MimeType: mime}
}

// ToolCall returns a tool-call block.
func ToolCall(id, name string, args map[string]any) ContentBlock {
	if args == nil {
		args = map[string]any{}
	}
	return ContentBlock{Type: BlockToolCall, ID: id, Name: name, Arguments: args}
}

// MarshalJSON writes only the fields of the block's type, with required
// fields always present (an empty text block still has "text":"").
func (b ContentBlock) MarshalJSON() ([]byte, error) {
	w := jsonw.Object{}
	w.Str("type", b.Type)
	switch b.Type {
	case BlockText:
		w.Str("text", b.Text)
		w.OptStr("textSignature", b.TextSignature)
	case BlockThinking:
		w.Str("thinking", b.Thinking)
		w.OptStr("thinkingSignature", b.ThinkingSignature)
		if b.Redacted {
			w.Raw("redacted", []byte("true"))
		}
	case BlockImage:
		w.Str("data", b.Data)
		w.Str("mimeType", b.MimeType)
	case BlockToolCall:
		w.Str("id", b.ID)
		w.Str("name", b.Name)
		args := b.Arguments
		if args == nil {
			args = map[string]any{}
		}
		w.Val("arguments", args)
		w.OptStr("thoughtSignature", b.ThoughtSignature)
	default:
		w.OptStr("text", b.Text)
	}
	return w.Close()
}

// UnmarshalJSON reads any block shape leniently (unknown keys are
// dropped).
func (b *ContentBlock) UnmarshalJSON(data []byte) error {
	*b = ContentBlock{}
	if jsonscan.IsNull(data) {
		return nil
	}
	var err error
	str := func(v []byte, k string, dst *string) { *dst, err = jsonscan.String(v, k) }
	ok := jsonscan.Fields(data, func(key, v []byte) bool {
		switch k := string(key); k {
		case "type":
			str(v, k, &b.Type)
		case "text":
			str(v, k, &b.Text)
		case "textSignature":
			str(v, k, &b.TextSignature)
		case "thinking":
			str(v, k, &b.Thinking)
		case "thinkingSignature":
			str(v, k, &b.ThinkingSignature)
		case "redacted":
			b.Redacted, err = jsonscan.Bool(v, k)
		case "data":
			str(v, k, &b.Data)
		case "mimeType":
			str(v, k, &b.MimeType)
		case "id":
			str(v, k, &b.ID)
		case "name":
			str(v, k, &b.Name)
		case "arguments":
			b.Arguments = nil
			err = jsonscan.Any(v, &b.Arguments)
		case "thoughtSignature":
			str(v, k, &b.ThoughtSignature)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("json: a content block must be a JSON object")
	}
	if b.Type == BlockToolCall && b.Arguments == nil {
		b.Arguments = map[string]any{}
	}
	return nil
}

// Content is a message's content. It serialises as a plain string when
// AsString is set and it holds a single text block, and as an array of
// blocks otherwise, so that both shapes the protocol allows round-trip.
type Content struct {
	Blocks   []ContentBlock
	AsString bool
}

// TextContent returns content holding one text block.
func TextContent(s string) Content { return Content{Blocks: []ContentBlock{Text(s)}} }

// MarshalJSON implements json.Marshaler.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.AsString && len(c.Blocks) <= 1 {
		s := ""
		if len(c.Blocks) == 1 {
			s = c.Blocks[0].Text
		}
		return json.Marshal(s)
	}
	if c.Blocks == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(c.Blocks)
}

// UnmarshalJSON accepts a string or an array of blocks.
func (c *Content) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		s, ok := jsonscan.Unquote(data)
		if !ok {
			return fmt.Errorf("content must be a string or an array of blocks")
		}
		c.Blocks = []ContentBlock{Text(s)}
		c.AsString = true
		return nil
	}
	if string(data) == "null" {
		c.Blocks = nil
		return nil
	}
	blocks := []ContentBlock{}
	var err error
	ok := jsonscan.Elements(data, func(v []byte) bool {
		var b ContentBlock
		if err = b.UnmarshalJSON(v); err != nil {
			return false
		}
		blocks = append(blocks, b)
		return true
	})
	if err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("not an array")
		}
		return fmt.Errorf("content must be a string or an array of blocks: %w", err)
	}
	c.Blocks = blocks
	c.AsString = false
	return nil
}

// JoinText concatenates the text blocks with sep.
func (c Content) JoinText(sep string) string {
	out := ""
	first := true
	for _, b := range c.Blocks {
		if b.Type != BlockText {
			continue
		}
		if !first {
			out += sep
		}
		out += b.Text
		first = false
	}
	return out
}

// Images returns the image blocks.
func (c Content) Images() []ContentBlock {
	var out []ContentBlock
	for _, b := range c.Blocks {
		if b.Type == BlockImage {
			out = append(out, b)
		}
	}
	return out
}
