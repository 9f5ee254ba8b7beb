// Package prompts embeds the built-in prompt files: the default system
// prompt and the built-in slash-command templates.
package prompts

import "embed"

// FS holds every built-in prompt file.
//
//go:embed *.md
var FS embed.FS

// SystemPrompt returns the default system prompt text.
func SystemPrompt() string {
	b, err := FS.ReadFile("system.md")
	if err != nil {
		return ""
	}
	return string(b)
}
