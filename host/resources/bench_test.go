package resources

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// manyResources writes n skills and m templates, half in the agent
// directory and half in the project, like bench/startup-resources.
func manyResources(b *testing.B, n, m int) Options {
	root := b.TempDir()
	opts := Options{Cwd: filepath.Join(root, "project"), AgentDir: filepath.Join(root, "agent"), Home: filepath.Join(root, "home"),
		ProjectTrusted: true, NoBuiltins: true}
	body := strings.Repeat("Run the checks, read what they report, and fix the causes one by one. ", 20)
	for i := range n {
		dir := filepath.Join(opts.AgentDir, "skills")
		if i%2 == 1 {
			dir = filepath.Join(opts.Cwd, ".atomic", "skills")
		}
		name := fmt.Sprintf("skill-%03d", i)
		writeB(b, filepath.Join(dir, name, "SKILL.md"), fmt.Sprintf("---\nname: %s\ndescription: Skill number %d. Use it when the task is about area %d.\nlicense: MIT\n---\n\n%s\n", name, i, i, body))
	}
	for i := range m {
		dir := filepath.Join(opts.AgentDir, "prompts")
		if i%2 == 1 {
			dir = filepath.Join(opts.Cwd, ".atomic", "prompts")
		}
		writeB(b, filepath.Join(dir, fmt.Sprintf("tpl-%03d.md", i)), fmt.Sprintf("---\ndescription: Template %d\nargument-hint: <file>\n---\nLook at $1. %s\n", i, body))
	}
	return opts
}

func writeB(b *testing.B, path, text string) {
	b.Helper()
	if err := mkWrite(path, text); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkLoad500Skills200Templates(b *testing.B) {
	opts := manyResources(b, 500, 200)
	b.ResetTimer()
	for b.Loop() {
		set := Load(opts)
		if len(set.Skills) != 500 || len(set.Templates) != 200 {
			b.Fatalf("loaded %d skills, %d templates", len(set.Skills), len(set.Templates))
		}
	}
}

func BenchmarkLoadEmpty(b *testing.B) {
	opts := manyResources(b, 0, 0)
	for b.Loop() {
		Load(opts)
	}
}

func BenchmarkSystemPrompt500Skills(b *testing.B) {
	opts := manyResources(b, 500, 0)
	set := Load(opts)
	in := SystemPromptInput{Tools: toolsNamed("read", "bash", "edit", "write"), Skills: set.Skills, Cwd: opts.Cwd}
	for b.Loop() {
		BuildSystemPrompt(in)
	}
}

func BenchmarkParseDocument(b *testing.B) {
	text := "---\nname: pdf\ndescription: Work with PDF files, fill forms and extract text.\nlicense: MIT\n---\n\n" + strings.Repeat("body line\n", 100)
	for b.Loop() {
		if _, err := ParseDocument(text); err != nil {
			b.Fatal(err)
		}
	}
}
