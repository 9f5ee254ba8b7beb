// Package prompts embeds the built-in prompt files: the default system
// prompt (system.md) and the built-in slash-command templates
// (templates/*.md).
package prompts

import "embed"

// FS holds every built-in prompt file.
//
//go:embed *.md templates/*.md
var FS embed.FS

// TemplatesDir is the directory of FS that holds the built-in templates.
const TemplatesDir = "templates"

// SystemPrompt returns the default system prompt text.
func SystemPrompt() string {
	b, err := FS.ReadFile("system.md")
	if err != nil {
		return ""
	}
	return string(b)
}
