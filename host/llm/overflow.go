package llm

import (
	"regexp"
	"strings"
	"sync"
)

// overflowPatterns match the ways providers say the request did not fit in
// the model's context window (Anthropic, OpenAI, Google, OpenRouter, Groq,
// llama.cpp, vLLM, Ollama, LM Studio, Mistral, xAI, …).
var overflowPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`(?i)prompt is too long`),
		regexp.MustCompile(`(?i)input is too long for requested model`),
		regexp.MustCompile(`(?i)exceeds the context window`),
		regexp.MustCompile(`(?i)input token count.*exceeds the maximum`),
		regexp.MustCompile(`(?i)maximum prompt length is \d+`),
		regexp.MustCompile(`(?i)reduce the length of the messages`),
		regexp.MustCompile(`(?i)maximum context length is \d+ tokens`),
		regexp.MustCompile(`(?i)exceeds the limit of \d+`),
		regexp.MustCompile(`(?i)exceeds the available context size`),
		regexp.MustCompile(`(?i)greater than the context length`),
		regexp.MustCompile(`(?i)context window exceeds limit`),
		regexp.MustCompile(`(?i)exceeded model token limit`),
		regexp.MustCompile(`(?i)too large for model with \d+ maximum context length`),
		regexp.MustCompile(`(?i)model_context_window_exceeded`),
		regexp.MustCompile(`(?i)context[_ ]length[_ ]exceeded`),
		regexp.MustCompile(`(?i)too many tokens`),
		regexp.MustCompile(`(?i)token limit exceeded`),
		// Some servers answer an oversized request with a bare 400 or 413.
		regexp.MustCompile(`(?i)^4(00|13)\s*(status code)?\s*\(no body\)`),
	}
})

// IsContextOverflowText reports whether a provider error text says that the
// request was larger than the model's context window.
func IsContextOverflowText(errorMessage string) bool {
	s := strings.TrimSpace(errorMessage)
	if s == "" {
		return false
	}
	for _, re := range overflowPatterns() {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// IsContextOverflow reports whether an assistant message shows that the
// context window overflowed: either the provider rejected the request with
// an overflow error, or it answered normally but reported more input tokens
// than the window holds (providers that truncate silently). contextWindow
// <= 0 disables the second check.
func IsContextOverflow(msg *Message, contextWindow int) bool {
	if msg == nil || msg.Role != RoleAssistant {
		return false
	}
	if msg.StopReason == StopError {
		return IsContextOverflowText(msg.ErrorMessage)
	}
	if msg.StopReason == StopStop && contextWindow > 0 {
		return msg.Usage.Input+msg.Usage.CacheRead > contextWindow
	}
	return false
}
