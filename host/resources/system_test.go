package resources

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/tools"
)

func toolsNamed(names ...string) []tools.Tool {
	r := tools.NewRegistryWithBuiltins(names)
	return r.Active()
}

var fixedNow = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

func TestSystemPromptDefault(t *testing.T) {
	p := BuildSystemPrompt(SystemPromptInput{Tools: toolsNamed("read", "bash", "edit", "write"), Cwd: "/work/proj", Now: fixedNow})
	for _, want := range []string{
		"Available tools:\n- read: ", "\n- bash: ", "\n- edit: ", "\n- write: ",
		"Guidelines:\n", "Explore the project through bash",
		"Use write only for new files", // a tool's own guideline
		"\n\nCurrent date: 2026-03-04\nCurrent working directory: /work/proj",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("missing %q in:\n%s", want, p)
		}
	}
	if strings.Contains(p, "<available_skills>") || strings.Contains(p, "# Project context") {
		t.Errorf("empty sections present:\n%s", p)
	}
	if !strings.HasSuffix(p, "/work/proj") {
		t.Errorf("prompt should end with the cwd line")
	}
}

func TestSystemPromptGuidelinesFollowTools(t *testing.T) {
	withExplorers := BuildSystemPrompt(SystemPromptInput{Tools: toolsNamed("read", "bash", "grep", "find"), Now: fixedNow})
	if !strings.Contains(withExplorers, "use grep and find rather than bash") || strings.Contains(withExplorers, "Explore the project through bash") {
		t.Errorf("bash + grep/find guideline wrong:\n%s", withExplorers)
	}
	readOnly := BuildSystemPrompt(SystemPromptInput{Tools: toolsNamed("read", "ls"), Now: fixedNow})
	if !strings.Contains(readOnly, "No tool here can change files") {
		t.Errorf("read-only guideline missing:\n%s", readOnly)
	}
	none := BuildSystemPrompt(SystemPromptInput{Now: fixedNow})
	if !strings.Contains(none, "Available tools:\n(none)") {
		t.Errorf("no tools:\n%s", none)
	}
	// Guidelines are not repeated.
	if c := strings.Count(BuildSystemPrompt(SystemPromptInput{Tools: toolsNamed("read", "bash", "edit", "write", "grep", "find", "ls"), Now: fixedNow}), "Look at files with read"); c != 1 {
		t.Errorf("guideline repeated %d times", c)
	}
}

func TestSystemPromptSections(t *testing.T) {
	skills := []Skill{
		{Name: "pdf", Description: `Fill "forms" & <fields>`, FilePath: "/s/pdf/SKILL.md"},
		{Name: "hidden", Description: "Only by command", FilePath: "/s/hidden/SKILL.md", DisableModelInvocation: true},
		{Name: "mem", Description: "No file", FilePath: BuiltinPrefix + "skills/mem/SKILL.md"},
	}
	ctx := []ContextFile{{Path: "/home/u/.atomic/agent/AGENTS.md", Content: "Global rules\n"}, {Path: "/p/AGENTS.md", Content: "Project rules"}}
	p := BuildSystemPrompt(SystemPromptInput{
		Tools: toolsNamed("read", "bash"), Cwd: "/p", Append: "Appended text.\n", ContextFiles: ctx, Skills: skills, Now: fixedNow,
	})
	order := []string{
		"Available tools:", "\n\nAppended text.\n\n# Project context",
		"<context_file path=\"/home/u/.atomic/agent/AGENTS.md\">\nGlobal rules\n</context_file>",
		"<context_file path=\"/p/AGENTS.md\">\nProject rules\n</context_file>",
		"<available_skills>\n  <skill>\n    <name>pdf</name>\n    <description>Fill &quot;forms&quot; &amp; &lt;fields&gt;</description>\n    <location>/s/pdf/SKILL.md</location>\n  </skill>\n</available_skills>",
		"Current date: 2026-03-04",
	}
	last := -1
	for _, s := range order {
		i := strings.Index(p, s)
		if i < 0 || i < last {
			t.Fatalf("%q missing or out of order in:\n%s", s, p)
		}
		last = i
	}
	if strings.Contains(p, "hidden") || strings.Contains(p, "<name>mem</name>") {
		t.Errorf("skills the model cannot use are listed:\n%s", p)
	}
	// No read tool: no skills listing.
	noRead := BuildSystemPrompt(SystemPromptInput{Tools: toolsNamed("bash"), Skills: skills, Now: fixedNow})
	if strings.Contains(noRead, "available_skills") {
		t.Errorf("skills listed without the read tool")
	}
	// Only disabled skills: no listing.
	onlyHidden := BuildSystemPrompt(SystemPromptInput{Tools: toolsNamed("read"), Skills: skills[1:2], Now: fixedNow})
	if strings.Contains(onlyHidden, "available_skills") {
		t.Errorf("listing without a model-invocable skill")
	}
}

func TestSystemPromptCustomReplacesDefault(t *testing.T) {
	p := BuildSystemPrompt(SystemPromptInput{
		Tools: toolsNamed("read"), Custom: "You are a pirate.\n", Append: "Arr.",
		Skills: []Skill{{Name: "x", Description: "d", FilePath: "/x/SKILL.md"}}, Cwd: "/c", Now: fixedNow,
	})
	if !strings.HasPrefix(p, "You are a pirate.\n\nArr.") || strings.Contains(p, "Available tools") {
		t.Fatalf("custom prompt:\n%s", p)
	}
	if !strings.Contains(p, "<name>x</name>") || !strings.HasSuffix(p, "Current working directory: /c") {
		t.Fatalf("custom prompt lacks the skills or the cwd:\n%s", p)
	}
}

func TestSkillsBudget(t *testing.T) {
	var skills []Skill
	for i := range 50 {
		skills = append(skills, Skill{Name: fmt.Sprintf("skill-%02d", i), Description: strings.Repeat("d", 100), FilePath: fmt.Sprintf("/s/skill-%02d/SKILL.md", i)})
	}
	skills[3].Description = strings.Repeat("long ", 1000)
	p := BuildSystemPrompt(SystemPromptInput{Tools: toolsNamed("read"), Skills: skills, SkillsBudget: 2000, Now: fixedNow})
	start, end := strings.Index(p, "<available_skills>"), strings.Index(p, "</available_skills>")
	if start < 0 || end < 0 || end-start > 2000+len("<available_skills>\n") {
		t.Fatalf("listing exceeds the budget (%d chars):\n%s", end-start, p)
	}
	listed := strings.Count(p, "<skill>")
	if listed == 0 || listed >= 50 {
		t.Fatalf("listed %d skills", listed)
	}
	if !strings.Contains(p, fmt.Sprintf("(%d more skills are installed but not listed", 50-listed)) {
		t.Fatalf("no note about the skills left out:\n%s", p[end:])
	}
	// A long description is shortened.
	full := BuildSystemPrompt(SystemPromptInput{Tools: toolsNamed("read"), Skills: skills[3:4], Now: fixedNow})
	if strings.Contains(full, strings.Repeat("long ", 300)) || !strings.Contains(full, "…</description>") {
		t.Fatalf("long description not shortened")
	}
}
