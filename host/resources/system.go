// Package resources finds skills, prompt templates and context files, and
// composes the system prompt from them and from the active tools.
package resources

import (
	"fmt"
	"strings"
	"time"

	"github.com/atomic-go/atomic/host/tools"
	"github.com/atomic-go/atomic/prompts"
)

// SystemPromptInput is what the system prompt is built from.
type SystemPromptInput struct {
	Tools  []tools.Tool
	Cwd    string
	Custom string // replaces the default prompt when not empty
	Append string
	Now    time.Time
}

// BuildSystemPrompt composes the system prompt.
func BuildSystemPrompt(in SystemPromptInput) string {
	var sb strings.Builder
	if in.Custom != "" {
		sb.WriteString(strings.TrimRight(in.Custom, "\n"))
	} else {
		sb.WriteString(strings.TrimRight(prompts.SystemPrompt(), "\n"))
		sb.WriteString("\n\nAvailable tools:\n")
		if len(in.Tools) == 0 {
			sb.WriteString("(none)\n")
		}
		var guidelines []string
		seen := map[string]bool{}
		for _, t := range in.Tools {
			line := t.Description()
			if p, ok := t.(tools.Prompted); ok {
				if s := p.PromptSnippet(); s != "" {
					line = s
				}
				for _, g := range p.PromptGuidelines() {
					g = strings.TrimSpace(g)
					if g != "" && !seen[g] {
						seen[g] = true
						guidelines = append(guidelines, g)
					}
				}
			}
			if i := strings.IndexByte(line, '\n'); i >= 0 {
				line = line[:i]
			}
			fmt.Fprintf(&sb, "- %s: %s\n", t.Name(), strings.TrimSpace(line))
		}
		guidelines = append(guidelines, "Keep answers short and to the point.", "Name files by their paths when you talk about them.")
		sb.WriteString("\nGuidelines:\n")
		for _, g := range guidelines {
			fmt.Fprintf(&sb, "- %s\n", g)
		}
	}
	if in.Append != "" {
		sb.WriteString("\n\n")
		sb.WriteString(strings.TrimRight(in.Append, "\n"))
	}
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	fmt.Fprintf(&sb, "\nCurrent date: %s", now.Format("2006-01-02"))
	fmt.Fprintf(&sb, "\nCurrent working directory: %s", in.Cwd)
	return sb.String()
}
