// Package resources finds skills, prompt templates and context files, and
// composes the system prompt from them and from the active tools.
package resources

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/atomic-go/atomic/host/tools"
	"github.com/atomic-go/atomic/prompts"
)

// DefaultSkillsBudget is the default number of characters the skills
// listing may take in the system prompt. Skills are listed in precedence
// order until the next one would not fit; a last line tells the model how
// many were left out.
const DefaultSkillsBudget = 24000

// maxListedDescription shortens long skill descriptions in the listing.
const maxListedDescription = MaxSkillDescriptionLen

// SystemPromptInput is what the system prompt is built from.
type SystemPromptInput struct {
	Tools []tools.Tool
	Cwd   string
	// Custom replaces the default prompt when not empty (--system-prompt,
	// else SYSTEM.md).
	Custom string
	// Append is added after the prompt (--append-system-prompt, else
	// APPEND_SYSTEM.md).
	Append       string
	ContextFiles []ContextFile
	Skills       []Skill
	// SkillsBudget caps the skills listing (0: DefaultSkillsBudget).
	SkillsBudget int
	Now          time.Time
}

// BuildSystemPrompt composes the system prompt: the default prompt (or the
// custom one), the appended text, the context files, the skills listing
// (only when the read tool is active), then the date and the working
// directory.
func BuildSystemPrompt(in SystemPromptInput) string {
	return BuildFromOptions(OptionsFor(in), in.SkillsBudget, in.Now)
}

// OptionsFor is the structured form of the prompt's inputs, pi 1.6's
// BuildSystemPromptOptions: what before_agent_start handlers and
// ctx.getSystemPromptOptions() see and may change.
func OptionsFor(in SystemPromptInput) PromptOptions {
	o := PromptOptions{
		CustomPrompt: strings.TrimSpace(in.Custom), AppendSystemPrompt: strings.TrimSpace(in.Append), Cwd: in.Cwd,
		SelectedTools: []string{}, ToolSnippets: map[string]string{}, ToolGuidelines: map[string][]string{},
		PromptGuidelines: []string{}, Sections: &OrderedStrings{}, ContextFiles: []PromptContextFile{}, Skills: []PromptSkill{},
	}
	for _, t := range in.Tools {
		name := t.Name()
		o.SelectedTools = append(o.SelectedTools, name)
		line := t.Description()
		if p, ok := t.(tools.Prompted); ok {
			if s := strings.TrimSpace(p.PromptSnippet()); s != "" {
				line = s
			}
			if g := p.PromptGuidelines(); len(g) > 0 {
				o.ToolGuidelines[name] = append([]string(nil), g...)
			}
		}
		line, _, _ = strings.Cut(strings.TrimSpace(line), "\n")
		if line = strings.TrimSpace(line); line != "" {
			o.ToolSnippets[name] = line
		}
	}
	for _, f := range in.ContextFiles {
		o.ContextFiles = append(o.ContextFiles, PromptContextFile(f))
	}
	for _, sk := range in.Skills {
		o.Skills = append(o.Skills, PromptSkill{Name: sk.Name, Description: sk.Description, FilePath: sk.FilePath, BaseDir: sk.BaseDir, DisableModelInvocation: sk.DisableModelInvocation})
	}
	return o
}

// BuildFromOptions composes the system prompt from its structured
// inputs (see BuildSystemPrompt); the sections extensions add come after
// the skills, each in a tag of its name.
func BuildFromOptions(o PromptOptions, skillsBudget int, now time.Time) string {
	var sb strings.Builder
	if strings.TrimSpace(o.CustomPrompt) != "" {
		sb.WriteString(strings.TrimSpace(o.CustomPrompt))
	} else {
		var base strings.Builder
		writeDefaultPrompt(&base, o)
		sb.WriteString(strings.TrimRight(base.String(), "\n"))
	}
	if s := strings.TrimSpace(o.AppendSystemPrompt); s != "" {
		sb.WriteString("\n\n")
		sb.WriteString(s)
	}
	files := make([]ContextFile, len(o.ContextFiles))
	for i, f := range o.ContextFiles {
		files[i] = ContextFile(f)
	}
	writeContextFiles(&sb, files)
	if slices.Contains(o.SelectedTools, "read") {
		if skillsBudget <= 0 {
			skillsBudget = DefaultSkillsBudget
		}
		skills := make([]Skill, len(o.Skills))
		for i, sk := range o.Skills {
			skills[i] = Skill{Name: sk.Name, Description: sk.Description, FilePath: sk.FilePath, BaseDir: sk.BaseDir, DisableModelInvocation: sk.DisableModelInvocation}
		}
		writeSkills(&sb, skills, skillsBudget)
	}
	if o.Sections != nil {
		for _, kv := range o.Sections.List {
			if strings.TrimSpace(kv.Value) != "" {
				fmt.Fprintf(&sb, "\n\n<%s>\n%s\n</%s>", kv.Key, strings.TrimSpace(kv.Value), kv.Key)
			}
		}
	}
	if now.IsZero() {
		now = time.Now()
	}
	fmt.Fprintf(&sb, "\n\nCurrent date: %s", now.Format("2006-01-02"))
	fmt.Fprintf(&sb, "\nCurrent working directory: %s", strings.ReplaceAll(o.Cwd, `\`, "/"))
	return sb.String()
}

func writeDefaultPrompt(sb *strings.Builder, o PromptOptions) {
	sb.WriteString(strings.TrimSpace(prompts.SystemPrompt()))
	sb.WriteString("\n\nAvailable tools:\n")
	if len(o.SelectedTools) == 0 {
		sb.WriteString("(none)\n")
	}
	var toolGuidelines []string
	for _, name := range o.SelectedTools {
		line := o.ToolSnippets[name]
		if line == "" {
			line = name
		}
		toolGuidelines = append(toolGuidelines, o.ToolGuidelines[name]...)
		fmt.Fprintf(sb, "- %s: %s\n", name, strings.TrimSpace(line))
	}
	sb.WriteString("Extensions may add more tools; each one's description says what it does.\n")

	var guidelines []string
	seen := map[string]bool{}
	add := func(g string) {
		g = strings.TrimSpace(g)
		if g != "" && !seen[g] {
			seen[g] = true
			guidelines = append(guidelines, g)
		}
	}
	for _, g := range comboGuidelines(o.SelectedTools) {
		add(g)
	}
	for _, g := range toolGuidelines {
		add(g)
	}
	for _, g := range o.PromptGuidelines {
		add(g)
	}
	add("Be brief: lead with the answer or the result, then the details that matter.")
	add("Refer to files by their paths, so the user can find what you mean.")
	sb.WriteString("\nGuidelines:\n")
	for _, g := range guidelines {
		fmt.Fprintf(sb, "- %s\n", g)
	}
}

// comboGuidelines are the guidelines that depend on which tools are active
// together.
func comboGuidelines(active []string) []string {
	on := map[string]bool{}
	for _, n := range active {
		on[n] = true
	}
	var out []string
	var explorers []string
	for _, n := range []string{"grep", "find", "ls"} {
		if on[n] {
			explorers = append(explorers, n)
		}
	}
	switch {
	case on["bash"] && len(explorers) == 0:
		out = append(out, "Explore the project through bash: ls to look around, rg (or grep) to search contents, find to locate files.")
	case on["bash"]:
		out = append(out, "To explore files, use "+joinWords(explorers)+" rather than bash: they honour .gitignore and keep their output short.")
	}
	if !on["edit"] && !on["write"] && !on["bash"] {
		out = append(out, "No tool here can change files: when a change is needed, show it and let the user apply it.")
	}
	return out
}

func joinWords(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

func writeContextFiles(sb *strings.Builder, files []ContextFile) {
	if len(files) == 0 {
		return
	}
	sb.WriteString("\n\n# Project context\n\nThe files below hold instructions from the user and the project; follow them. Later files are more specific than earlier ones.")
	for _, f := range files {
		fmt.Fprintf(sb, "\n\n<context_file path=\"%s\">\n%s\n</context_file>", xmlEscape(f.Path), strings.TrimSpace(f.Content))
	}
}

// writeSkills writes the skills listing for the skills the model may use:
// not those with disable-model-invocation, nor built-ins that have no file
// the model could read.
func writeSkills(sb *strings.Builder, skills []Skill, budget int) {
	var entries []string
	used, omitted := 0, 0
	for _, sk := range skills {
		if sk.DisableModelInvocation || strings.HasPrefix(sk.FilePath, BuiltinPrefix) {
			continue
		}
		if omitted > 0 {
			omitted++
			continue
		}
		e := "  <skill>\n    <name>" + xmlEscape(sk.Name) + "</name>\n    <description>" +
			xmlEscape(shorten(sk.Description, maxListedDescription)) + "</description>\n    <location>" +
			xmlEscape(sk.FilePath) + "</location>\n  </skill>\n"
		if used+len(e) > budget {
			omitted++
			continue
		}
		used += len(e)
		entries = append(entries, e)
	}
	if len(entries) == 0 && omitted == 0 {
		return
	}
	sb.WriteString("\n\n# Skills\n\nSkills are instructions for particular kinds of task. When a task matches a skill's description, use the read tool to load the skill's file from its location before you start, then follow it. Paths inside a skill are relative to the directory of its file.\n\n<available_skills>\n")
	for _, e := range entries {
		sb.WriteString(e)
	}
	sb.WriteString("</available_skills>")
	if omitted > 0 {
		fmt.Fprintf(sb, "\n(%d more skills are installed but not listed, to keep this prompt short.)", omitted)
	}
}

// shorten cuts s to at most n characters, marking the cut with "…".
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
