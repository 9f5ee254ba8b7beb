package packages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkResolve10 resolves 10 installed packages (5 npm, 5 git, each
// with 2 skills and 2 templates): the work start-up adds for them.
func BenchmarkResolve10(b *testing.B) {
	agentDir := b.TempDir()
	var sources []string
	for i := range 10 {
		name := fmt.Sprintf("bench-pkg-%02d", i)
		root := filepath.Join(agentDir, "npm", "node_modules", name)
		src := "npm:" + name + "@1.0.0"
		if i%2 == 1 {
			root = filepath.Join(agentDir, "git", "example.com", "team", name)
			src = "git:example.com/team/" + name
			_ = os.MkdirAll(filepath.Join(root, ".git"), 0o755)
		}
		sources = append(sources, fmt.Sprintf("%q", src))
		files := map[string]string{"package.json": `{"name": "` + name + `", "version": "1.0.0", "pi": {"skills": ["./skills"], "prompts": ["./prompts"]}}`}
		for j := range 2 {
			files[fmt.Sprintf("skills/s%d/SKILL.md", j)] = "---\nname: s\ndescription: d\n---\nbody\n"
			files[fmt.Sprintf("prompts/t%d.md", j)] = "body"
		}
		for f, text := range files {
			p := filepath.Join(root, f)
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
			_ = os.WriteFile(p, []byte(text), 0o644)
		}
	}
	_ = os.WriteFile(filepath.Join(agentDir, "settings.json"), []byte(`{"packages": [`+strings.Join(sources, ",")+`]}`), 0o644)
	o := Options{AgentDir: agentDir, Cwd: b.TempDir(), Install: true}
	b.ReportAllocs()
	for b.Loop() {
		res := Resolve(context.Background(), o)
		if len(res.Skills) != 20 || len(res.Prompts) != 20 || len(res.Problems) != 0 {
			b.Fatalf("%d skills, %d prompts, %v", len(res.Skills), len(res.Prompts), res.Problems)
		}
	}
}
