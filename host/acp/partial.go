package acp

import (
	"encoding/json"
	"strings"
)

// partialArgs reads the arguments of a tool call whose JSON is still
// streaming: the complete members so far, with an open string cut where
// it ends. It returns nil when nothing can be read yet.
func partialArgs(raw string) map[string]any {
	var m map[string]any
	if json.Unmarshal([]byte(raw), &m) == nil {
		return m
	}
	// Scan once, remembering the open containers and, at every comma or
	// opening bracket outside strings, a place where the text can be cut
	// and closed.
	type cut struct {
		at    int
		stack string
	}
	var (
		stack    []byte
		inString bool
		escape   bool
		cuts     []cut
	)
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch {
			case escape:
				escape = false
			case c == '\\':
				escape = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			stack = append(stack, c)
			cuts = append(cuts, cut{i + 1, string(stack)})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			cuts = append(cuts, cut{i, string(stack)})
		}
	}
	closeWith := func(text, open string) map[string]any {
		var b strings.Builder
		b.WriteString(text)
		for i := len(open) - 1; i >= 0; i-- {
			if open[i] == '{' {
				b.WriteByte('}')
			} else {
				b.WriteByte(']')
			}
		}
		var out map[string]any
		if json.Unmarshal([]byte(b.String()), &out) != nil {
			return nil
		}
		return out
	}
	if inString {
		// Close the open string (a value being streamed, such as a
		// command or a file's content), without a dangling escape.
		text := raw
		if escape {
			text = text[:len(text)-1]
		} else if j := strings.LastIndex(text, `\u`); j >= 0 && len(text)-j < 6 {
			text = text[:j]
		}
		if m := closeWith(text+`"`, string(stack)); m != nil {
			return m
		}
	} else if m := closeWith(raw, string(stack)); m != nil {
		return m
	}
	// Fall back to the last places the text could be cut: a member whose
	// key or value is incomplete is left out.
	for i, n := len(cuts)-1, 0; i >= 0 && n < 4; i, n = i-1, n+1 {
		if m := closeWith(raw[:cuts[i].at], cuts[i].stack); m != nil {
			return m
		}
	}
	return nil
}
