package openai

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// chunk is one Chat Completions stream event, with only the fields the
// provider reads. The SDK's own ChatCompletionChunk decodes through a
// reflection-based decoder that cost about 10 µs per event, most of the
// agent's CPU time on a long streamed reply; this plain struct decodes
// with encoding/json in a fraction of that. Like the SDK's decoder it
// tolerates null and values of unexpected types (they read as empty).
type chunk struct {
	ID      text          `json:"id"`
	Choices []chunkChoice `json:"choices"`
	Usage   *chunkUsage   `json:"usage"`
}

type chunkChoice struct {
	Index        number     `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason text       `json:"finish_reason"`
}

type chunkDelta struct {
	Content text `json:"content"`
	Refusal text `json:"refusal"`
	// The fields compatible servers use for reasoning text (llama.cpp,
	// vLLM and DeepSeek: reasoning_content; Ollama, OpenRouter and Groq:
	// reasoning).
	ReasoningContent text            `json:"reasoning_content"`
	Reasoning        text            `json:"reasoning"`
	ReasoningText    text            `json:"reasoning_text"`
	ToolCalls        []chunkToolCall `json:"tool_calls"`
}

// reasoning returns the delta's reasoning text, from the first field that
// has some.
func (d *chunkDelta) reasoning() string {
	for _, s := range []text{d.ReasoningContent, d.Reasoning, d.ReasoningText} {
		if s != "" {
			return string(s)
		}
	}
	return ""
}

type chunkToolCall struct {
	Index    number `json:"index"`
	ID       text   `json:"id"`
	Function struct {
		Name      text `json:"name"`
		Arguments text `json:"arguments"`
	} `json:"function"`
}

type chunkUsage struct {
	PromptTokens        *number `json:"prompt_tokens"`
	CompletionTokens    number  `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens number `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// text is a string that reads null and other JSON types as "".
type text string

// UnmarshalJSON implements json.Unmarshaler. encoding/json has checked
// that b is one valid JSON value before calling it, so a string with no
// escape and valid UTF-8 is its own contents: taken as is (most deltas),
// without a second decoder pass.
func (t *text) UnmarshalJSON(b []byte) error {
	if n := len(b); n >= 2 && b[0] == '"' && b[n-1] == '"' {
		if s := b[1 : n-1]; bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
			*t = text(s)
			return nil
		}
	}
	var s string
	if len(b) > 0 && b[0] == '"' && json.Unmarshal(b, &s) == nil {
		*t = text(s)
	} else {
		*t = ""
	}
	return nil
}

// number is an integer that reads null and other JSON types as 0.
type number int64

// UnmarshalJSON implements json.Unmarshaler. A plain integer of at most
// 15 digits (exact as a float64, so the result is the same) is parsed
// directly.
func (n *number) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && len(b) <= 15 && b[0] != '-' {
		if i, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			*n = number(i)
			return nil
		}
	}
	var f float64
	if json.Unmarshal(b, &f) == nil {
		*n = number(f)
	} else {
		*n = 0
	}
	return nil
}
