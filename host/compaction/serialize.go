package compaction

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
)

// Role headers of the serialised transcript.
const (
	HeaderUser        = "[User]: "
	HeaderAssistant   = "[Assistant]: "
	HeaderThinking    = "[Assistant thinking]: "
	HeaderToolCalls   = "[Assistant tool calls]: "
	HeaderToolResult  = "[Tool result]: "
	imagePlaceholder  = "[image]"
	sectionSeparator  = "\n\n"
	truncationNoteFmt = "\n\n[... %d more characters truncated]"
)

// serializer writes messages as role-tagged sections separated by blank
// lines; an image becomes an "[image]" line. In planning mode long tool
// results are capped; in retained mode (the kept tail of a boundary) text
// is never cut and the images are also collected as blocks.
type serializer struct {
	retained bool
	sb       strings.Builder
	images   []llm.ContentBlock
	any      bool
}

func (s *serializer) section(header, payload string) {
	if payload == "" {
		return
	}
	if s.any {
		s.sb.WriteString(sectionSeparator)
	}
	s.any = true
	s.sb.WriteString(header)
	s.sb.WriteString(payload)
}

// blocksText renders text and image blocks. capText limits each text block
// (planning mode tool results).
func (s *serializer) blocksText(blocks []llm.ContentBlock, capText bool) string {
	var b strings.Builder
	for _, bl := range blocks {
		switch bl.Type {
		case llm.BlockText:
			t := bl.Text
			if capText {
				t = capToolText(t)
			}
			b.WriteString(t)
		case llm.BlockImage:
			if s.retained {
				s.images = append(s.images, bl)
			}
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
				b.WriteByte('\n')
			}
			b.WriteString(imagePlaceholder)
			b.WriteByte('\n')
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (s *serializer) message(m *llm.Message) {
	switch m.Role {
	case llm.RoleAssistant:
		var thinking, text, calls []string
		for _, b := range m.Content.Blocks {
			switch b.Type {
			case llm.BlockThinking:
				if !b.Redacted && b.Thinking != "" {
					thinking = append(thinking, b.Thinking)
				}
			case llm.BlockText:
				if b.Text != "" {
					text = append(text, b.Text)
				}
			case llm.BlockToolCall:
				calls = append(calls, formatToolCall(b))
			}
		}
		s.section(HeaderThinking, strings.Join(thinking, "\n"))
		s.section(HeaderAssistant, strings.Join(text, "\n"))
		s.section(HeaderToolCalls, strings.Join(calls, "; "))
	case llm.RoleToolResult:
		s.section(HeaderToolResult, s.blocksText(m.Content.Blocks, !s.retained))
	default:
		if !visible(m) {
			return
		}
		s.section(HeaderUser, s.blocksText(userContent(m).Blocks, false))
	}
}

// capToolText keeps the first ToolResultCap characters of a tool result's
// text and notes how many were left out.
func capToolText(t string) string {
	n := llm.TextLen(t)
	if n <= ToolResultCap {
		return t
	}
	units, cut := 0, len(t)
	for i, r := range t {
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if units+w > ToolResultCap {
			cut = i
			break
		}
		units += w
	}
	return t[:cut] + fmt.Sprintf(truncationNoteFmt, n-units)
}

// formatToolCall renders name(k1=<json>, k2=<json>) with keys sorted.
func formatToolCall(b llm.ContentBlock) string {
	keys := make([]string, 0, len(b.Arguments))
	for k := range b.Arguments {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + compactJSON(b.Arguments[k])
	}
	return b.Name + "(" + strings.Join(parts, ", ") + ")"
}

// compactJSON encodes v without HTML escaping and without a newline.
func compactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// Serialize renders messages as the planning transcript: role-tagged
// sections separated by blank lines, long tool results capped, images as
// "[image]" lines.
func Serialize(msgs []llm.Message) string {
	var s serializer
	for i := range msgs {
		s.message(&msgs[i])
	}
	return s.sb.String()
}

// SerializeRetained renders messages in retained mode: nothing is cut and
// the images are returned as blocks (their "[image]" lines mark where they
// were).
func SerializeRetained(msgs []llm.Message) (string, []llm.ContentBlock) {
	s := serializer{retained: true}
	for i := range msgs {
		s.message(&msgs[i])
	}
	return s.sb.String(), s.images
}
