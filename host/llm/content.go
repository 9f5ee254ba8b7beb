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

	// RawArguments is the argument text a model streamed for a tool call,
	// kept in memory only (never written): a validation message echoes
	// the arguments in the order the model wrote them. ArgumentsError
	// says why that text is not a JSON object; Arguments is then empty.
	RawArguments   string
	ArgumentsError string

	// Extra holds fields read from JSON that this type does not know
	// (for example a tool call's "namespace"); they are written back.
	Extra map[string]json.RawMessage
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
func (b ContentBlock) MarshalJSON() ([]byte, error) { return b.AppendJSON(nil), nil }

// AppendJSON appends the block's JSON to dst.
func (b ContentBlock) AppendJSON(dst []byte) []byte {
	w := jsonw.Append(dst)
	w.Str("type", b.Type)
	switch b.Type {
	case BlockText:
		w.Str("text", b.Text)
		w.OptStr("textSignature", b.TextSignature)
	case BlockThinking:
		w.Str("thinking", b.Thinking)
		w.OptStr("thinkingSignature", b.ThinkingSignature)
		if b.Redacted {
			w.Bool("redacted", true)
		}
	case BlockImage:
		w.Str("data", b.Data)
		w.Str("mimeType", b.MimeType)
	case BlockToolCall:
		w.Str("id", b.ID)
		w.Str("name", b.Name)
		if b.Arguments == nil {
			w.Raw("arguments", []byte("{}"))
		} else {
			w.Val("arguments", b.Arguments)
		}
		w.OptStr("thoughtSignature", b.ThoughtSignature)
	default:
		w.OptStr("text", b.Text)
	}
	w.Extra(b.Extra)
	return w.Close()
}

// knownBlockKeys are the keys each block type reads; anything else is kept
// in Extra.
var knownBlockKeys = map[string]map[string]bool{
	BlockText:     {"type": true, "text": true, "textSignature": true},
	BlockThinking: {"type": true, "thinking": true, "thinkingSignature": true, "redacted": true},
	BlockImage:    {"type": true, "data": true, "mimeType": true},
	BlockToolCall: {"type": true, "id": true, "name": true, "arguments": true, "thoughtSignature": true},
}

// UnmarshalJSON reads any block shape leniently, in one walk over the
// object; keys the block's type does not read are kept in Extra.
func (b *ContentBlock) UnmarshalJSON(data []byte) error {
	*b = ContentBlock{}
	if jsonscan.IsNull(data) {
		return nil
	}
	var err error
	type member struct{ key, value []byte }
	var members []member
	str := func(v []byte, k string, dst *string) { *dst, err = jsonscan.String(v, k) }
	ok := jsonscan.Fields(data, func(key, v []byte) bool {
		members = append(members, member{key, v})
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
	known, found := knownBlockKeys[b.Type]
	if !found {
		known = map[string]bool{"type": true, "text": true}
	}
	for _, m := range members {
		if !known[string(m.key)] {
			if b.Extra == nil {
				b.Extra = map[string]json.RawMessage{}
			}
			b.Extra[string(m.key)] = append(json.RawMessage(nil), m.value...)
		}
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

// MarshalJSON implements json.Marshaler. Content read as a string is
// written as a string again only while it still is one plain text block.
func (c Content) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil), nil }

// AppendJSON appends the content's JSON to dst.
func (c Content) AppendJSON(dst []byte) []byte {
	if c.AsString && c.isPlainText() {
		s := ""
		if len(c.Blocks) == 1 {
			s = c.Blocks[0].Text
		}
		return jsonw.AppendString(dst, s)
	}
	return appendBlocks(dst, c.Blocks)
}

// isPlainText reports whether the content can be written as a string
// without losing anything.
func (c Content) isPlainText() bool {
	switch len(c.Blocks) {
	case 0:
		return true
	case 1:
		b := c.Blocks[0]
		return b.Type == BlockText && b.TextSignature == "" && len(b.Extra) == 0
	}
	return false
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
