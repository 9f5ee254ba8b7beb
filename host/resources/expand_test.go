package resources

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Deploy the app\n---\n\nRun ./deploy.sh from scripts/.\n")
	write(t, filepath.Join(dir, "prompts", "review.md"), "---\ndescription: Review\n---\nReview $1 focusing on ${@:2}.")
	write(t, filepath.Join(dir, "prompts", "plain.md"), "Just text, $ARGUMENTS.")
	set := Load(Options{Cwd: dir, NoBuiltins: true,
		SkillPaths: []string{filepath.Join(dir, "skills")}, TemplatePaths: []string{filepath.Join(dir, "prompts")}})
	loc := filepath.Join(dir, "skills", "deploy", "SKILL.md")
	block := "<skill name=\"deploy\" location=\"" + loc + "\">\nRelative paths in this skill are resolved against " +
		filepath.Join(dir, "skills", "deploy") + ".\n\nRun ./deploy.sh from scripts/.\n</skill>"
	tests := []struct {
		in, want, kind string
		open           bool
	}{
		{"/skill:deploy", block, KindSkill, false},
		{"/skill:deploy   to staging  now ", block + "\n\nto staging  now", KindSkill, false},
		{"/skill:deploy\nwith care", block + "\n\nwith care", KindSkill, false},
		{"/review main.go speed memory", "Review main.go focusing on speed memory.", KindPrompt, false},
		{`/review "a file.go" 'x y'`, "Review a file.go focusing on x y.", KindPrompt, false},
		{`/review "unterminated arg`, "Review \"unterminated focusing on arg.", KindPrompt, true}, // an unclosed quote is text (pi 1.6)
		{"/plain", "Just text, .", KindPrompt, false},
		{"/plain\nline two", "Just text, line two.", KindPrompt, false},
		{"/skill:nope args", "/skill:nope args", "", false},
		{"/unknown thing", "/unknown thing", "", false},
		{"review main.go", "review main.go", "", false},
		{" /review x", " /review x", "", false},
		{"/", "/", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		got, exp := set.Expand(tt.in)
		if got != tt.want || exp.Kind != tt.kind || exp.UnterminatedQuote != tt.open {
			t.Errorf("Expand(%q) = %q, %+v\nwant %q, kind %q", tt.in, got, exp, tt.want, tt.kind)
		}
	}
	// An edited skill is used without reloading.
	write(t, loc, "---\nname: deploy\ndescription: Deploy the app\n---\nNew steps.")
	if got, _ := set.Expand("/skill:deploy"); !strings.Contains(got, "\n\nNew steps.\n</skill>") {
		t.Errorf("edited skill not re-read: %q", got)
	}
	var nilSet *Set
	if got, _ := nilSet.Expand("/x"); got != "/x" {
		t.Errorf("nil set changed the text")
	}
}

func TestSkillBlockEscapesAttributes(t *testing.T) {
	got := SkillBlock(Skill{Name: "a", FilePath: `/p/"q"&<r>/SKILL.md`, BaseDir: "/p"}, "body", "")
	if !strings.HasPrefix(got, `<skill name="a" location="/p/&quot;q&quot;&amp;&lt;r&gt;/SKILL.md">`) {
		t.Fatalf("%q", got)
	}
}
