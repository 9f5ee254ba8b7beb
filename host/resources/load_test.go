package resources

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// copyFixture copies testdata/<name> into a temporary directory and
// returns its path.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("testdata", name)
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// discoveryFixture prepares testdata/discovery: a git work tree "repo"
// with the cwd "repo/work", an agent dir and a home.
func discoveryFixture(t *testing.T) (root string, opts Options) {
	root = copyFixture(t, "discovery")
	if err := os.Mkdir(filepath.Join(root, "repo", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Kept out of testdata, where git itself would obey it.
	write(t, filepath.Join(root, "repo/work/.atomic/skills/.gitignore"), "# private skills\nignored-skill/\n")
	return root, Options{
		Cwd: filepath.Join(root, "repo", "work"), AgentDir: filepath.Join(root, "agent"), Home: filepath.Join(root, "home"),
		ProjectTrusted: true, NoBuiltins: true,
	}
}

type named struct{ Name, Path, Scope, Source string }

func skillList(set *Set, root string) []named {
	var out []named
	for _, s := range set.Skills {
		rel, _ := filepath.Rel(root, s.FilePath)
		out = append(out, named{s.Name, filepath.ToSlash(rel), s.Info.Scope, s.Info.Source})
	}
	return out
}

func templateList(set *Set, root string) []named {
	var out []named
	for _, s := range set.Templates {
		rel, _ := filepath.Rel(root, s.Path)
		out = append(out, named{s.Name, filepath.ToSlash(rel), s.Info.Scope, s.Info.Source})
	}
	return out
}

func TestDiscoveryOrderAndCollisions(t *testing.T) {
	root, opts := discoveryFixture(t)
	opts.SkillPaths = []string{filepath.Join(root, "cli")}
	opts.TemplatePaths = []string{filepath.Join(root, "cli-templates", "cli-template.md")}
	opts.SettingsSkills = []PathEntry{{Path: filepath.Join(root, "extra/settings-skills"), Scope: ScopeUser}}
	opts.SettingsTemplates = []PathEntry{{Path: filepath.Join(root, "extra/settings-prompts"), Scope: ScopeUser}}
	set := Load(opts)

	wantSkills := []named{
		{"cli-skill", "cli/cli-skill/SKILL.md", ScopeTemporary, SourceCLI},
		{"nested", "repo/work/.atomic/skills/group/nested/SKILL.md", ScopeProject, SourceAuto},
		{"shared", "repo/work/.atomic/skills/shared/SKILL.md", ScopeProject, SourceAuto},
		{"dup", "repo/work/.agents/skills/dup/SKILL.md", ScopeProject, SourceAuto},
		{"repo-root", "repo/.agents/skills/repo-root/SKILL.md", ScopeProject, SourceAuto},
		{"from-settings", "extra/settings-skills/from-settings/SKILL.md", ScopeUser, SourceLocal},
		{"agent-only", "agent/skills/agent-only/SKILL.md", ScopeUser, SourceAuto},
		{"loose", "agent/skills/loose.md", ScopeUser, SourceAuto},
		{"home-agents", "home/.agents/skills/home-agents/SKILL.md", ScopeUser, SourceAuto},
		{"claude-user", "home/.claude/skills/claude-user/SKILL.md", ScopeUser, SourceAuto},
	}
	if got := skillList(set, root); !reflect.DeepEqual(got, wantSkills) {
		t.Errorf("skills:\n got %v\nwant %v", got, wantSkills)
	}
	wantTemplates := []named{
		{"cli-template", "cli-templates/cli-template.md", ScopeTemporary, SourceCLI},
		{"review", "repo/work/.atomic/prompts/review.md", ScopeProject, SourceAuto},
		{"from-settings", "extra/settings-prompts/from-settings.md", ScopeUser, SourceLocal},
		{"user-only", "agent/prompts/user-only.md", ScopeUser, SourceAuto},
	}
	if got := templateList(set, root); !reflect.DeepEqual(got, wantTemplates) {
		t.Errorf("templates:\n got %v\nwant %v", got, wantTemplates)
	}
	if r, _ := set.Template("review"); r.Description != "Project review" || r.ArgumentHint != "<file>" || r.Content != "Project review of $1" {
		t.Errorf("review template: %+v", r)
	}

	var collisions []string
	for _, d := range set.Diagnostics {
		if d.Type != DiagCollision {
			t.Errorf("unexpected diagnostic %+v", d)
			continue
		}
		w, _ := filepath.Rel(root, d.Collision.WinnerPath)
		l, _ := filepath.Rel(root, d.Collision.LoserPath)
		collisions = append(collisions, d.ResourceType+" "+d.Collision.Name+": "+w+" beats "+l)
		if d.Path != d.Collision.LoserPath {
			t.Errorf("collision path %q, want the loser's", d.Path)
		}
	}
	wantCollisions := []string{
		"skill dup: repo/work/.agents/skills/dup/SKILL.md beats repo/work/.claude/skills/dup/SKILL.md",
		"skill shared: repo/work/.atomic/skills/shared/SKILL.md beats agent/skills/shared/SKILL.md",
		"prompt /review: repo/work/.atomic/prompts/review.md beats agent/prompts/review.md",
	}
	if !reflect.DeepEqual(collisions, wantCollisions) {
		t.Errorf("collisions:\n got %q\nwant %q", collisions, wantCollisions)
	}

	var ctx []string
	for _, c := range set.ContextFiles {
		rel, _ := filepath.Rel(root, c.Path)
		ctx = append(ctx, filepath.ToSlash(rel)+"="+strings.TrimSpace(c.Content))
	}
	wantCtx := []string{"agent/AGENTS.md=Global rules.", "repo/AGENTS.md=Repository rules.", "repo/work/AGENTS.md=Work dir rules."}
	if !reflect.DeepEqual(ctx, wantCtx) {
		t.Errorf("context files:\n got %q\nwant %q", ctx, wantCtx)
	}
}

func TestDiscoveryUntrustedProject(t *testing.T) {
	root, opts := discoveryFixture(t)
	opts.ProjectTrusted = false
	opts.SettingsSkills = []PathEntry{{Path: filepath.Join(root, "extra/settings-skills"), Scope: ScopeProject}}
	write(t, filepath.Join(opts.Cwd, ".atomic", "SYSTEM.md"), "project system")
	write(t, filepath.Join(opts.AgentDir, "APPEND_SYSTEM.md"), "user append")
	set := Load(opts)
	for _, s := range set.Skills {
		if s.Info.Scope == ScopeProject || strings.Contains(s.FilePath, "repo") || s.Name == "from-settings" {
			t.Errorf("project skill loaded without trust: %+v", s)
		}
	}
	for _, tm := range set.Templates {
		if tm.Info.Scope == ScopeProject {
			t.Errorf("project template loaded without trust: %+v", tm)
		}
	}
	if len(set.Skills) != 5 || len(set.Templates) != 2 {
		t.Errorf("user resources: %v %v", skillList(set, root), templateList(set, root))
	}
	// Context files are text, read whatever the trust (as pi 1.6).
	if len(set.ContextFiles) != 3 || !strings.HasSuffix(set.ContextFiles[0].Path, "agent/AGENTS.md") {
		t.Errorf("context files without trust: %+v", set.ContextFiles)
	}
	if set.SystemText != "" || set.AppendText != "user append" {
		t.Errorf("system files without trust: %q %q", set.SystemText, set.AppendText)
	}
	// What was left out is named, as warnings; the user's files are not.
	var skipped []string
	for _, d := range set.Diagnostics {
		if d.Message == UntrustedMessage {
			rel, _ := filepath.Rel(root, d.Path)
			skipped = append(skipped, d.ResourceType+":"+filepath.ToSlash(rel))
		}
	}
	for _, want := range []string{"system:repo/work/.atomic/SYSTEM.md"} {
		if !slices.Contains(skipped, want) {
			t.Errorf("%s not reported as skipped: %v", want, skipped)
		}
	}
	for _, s := range skipped {
		if strings.Contains(s, "agent/") {
			t.Errorf("a user file reported as skipped: %s", s)
		}
	}
}

func TestDiscoveryDisabled(t *testing.T) {
	root, opts := discoveryFixture(t)
	opts.NoSkills, opts.NoTemplates, opts.NoContextFiles, opts.NoBuiltins = true, true, true, false
	opts.SkillPaths = []string{filepath.Join(root, "cli", "cli-skill", "SKILL.md")}
	opts.TemplatePaths = []string{filepath.Join(root, "cli-templates")}
	set := Load(opts)
	if got := skillList(set, root); len(got) != 1 || got[0].Name != "cli-skill" {
		t.Errorf("--no-skills kept %v", got)
	}
	if got := templateList(set, root); len(got) != 1 || got[0].Name != "cli-template" {
		t.Errorf("--no-prompt-templates kept %v", got)
	}
	if len(set.ContextFiles) != 0 {
		t.Errorf("--no-context-files kept %v", set.ContextFiles)
	}
}

func TestSystemFilesProjectFirst(t *testing.T) {
	_, opts := discoveryFixture(t)
	write(t, filepath.Join(opts.AgentDir, "SYSTEM.md"), "user system")
	write(t, filepath.Join(opts.AgentDir, "APPEND_SYSTEM.md"), "user append")
	set := Load(opts)
	if set.SystemText != "user system" || set.AppendText != "user append" {
		t.Fatalf("got %q %q", set.SystemText, set.AppendText)
	}
	write(t, filepath.Join(opts.Cwd, ".atomic", "SYSTEM.md"), "project system")
	write(t, filepath.Join(opts.Cwd, ".atomic", "APPEND_SYSTEM.md"), "project append")
	set = Load(opts)
	if set.SystemText != "project system" || set.AppendText != "project append" || !strings.HasSuffix(set.SystemFile, ".atomic/SYSTEM.md") {
		t.Fatalf("got %q %q", set.SystemText, set.AppendText)
	}
}

func TestBuiltinsComeLastAndCanBeOverridden(t *testing.T) {
	_, opts := discoveryFixture(t)
	opts.NoBuiltins = false
	opts.BuiltinCacheDir = t.TempDir()
	set := Load(opts)
	last := set.Skills[len(set.Skills)-1]
	if last.Name != "create-skill" || last.Info.Source != SourceBuiltin || !strings.HasPrefix(last.FilePath, opts.BuiltinCacheDir) {
		t.Fatalf("last skill %+v", last)
	}
	data, err := os.ReadFile(last.FilePath)
	if err != nil || !strings.Contains(string(data), "name: create-skill") {
		t.Fatalf("built-in skill not readable on disk: %v", err)
	}
	if _, ok := set.Template("explain"); !ok {
		t.Fatal("built-in template explain missing")
	}
	// The project's review.md overrides the built-in one, silently.
	if r, _ := set.Template("review"); r.Info.Source != SourceAuto {
		t.Fatalf("review: %+v", r)
	}
	for _, d := range set.Diagnostics {
		if d.Collision != nil && strings.HasPrefix(d.Collision.LoserPath, BuiltinPrefix) {
			t.Errorf("overriding a built-in reported: %+v", d)
		}
	}
	// Written once: a second load reuses the directory.
	set2 := Load(opts)
	if s, _ := set2.Skill("create-skill"); s.FilePath != last.FilePath {
		t.Fatalf("second load wrote elsewhere: %s", s.FilePath)
	}
	// Without a cache directory the built-in keeps a pseudo path.
	opts.BuiltinCacheDir = ""
	set3 := Load(opts)
	if s, _ := set3.Skill("create-skill"); !strings.HasPrefix(s.FilePath, BuiltinPrefix) {
		t.Fatalf("pseudo path: %s", s.FilePath)
	}
}

func TestBadInputIsReported(t *testing.T) {
	root := copyFixture(t, "bad")
	skills := filepath.Join(root, "skills")
	write(t, filepath.Join(skills, "long", "SKILL.md"), "---\nname: long\ndescription: "+strings.Repeat("x", 5000)+"\n---\nbody\n")
	// A link to the directory itself, and a link to itself.
	if err := os.Symlink(skills, filepath.Join(skills, "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("self", filepath.Join(skills, "self")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("missing-target", filepath.Join(skills, "dangling")); err != nil {
		t.Fatal(err)
	}
	// An unreadable file (only when not running as root, who can read it).
	if os.Geteuid() != 0 {
		write(t, filepath.Join(skills, "locked", "SKILL.md"), "---\ndescription: d\n---\n")
		if err := os.Chmod(filepath.Join(skills, "locked", "SKILL.md"), 0); err != nil {
			t.Fatal(err)
		}
	}
	set := Load(Options{Cwd: t.TempDir(), SkillPaths: []string{skills}, NoBuiltins: true})

	var names []string
	for _, s := range set.Skills {
		names = append(names, s.Name)
	}
	if want := []string{"MySkill", "good", "long", "twin"}; !reflect.DeepEqual(names, want) {
		t.Errorf("loaded %v, want %v", names, want)
	}
	if s, _ := set.Skill("twin"); !strings.HasSuffix(s.FilePath, "twin-a/SKILL.md") {
		t.Errorf("first twin should win: %s", s.FilePath)
	}
	expect := []struct{ typ, path, text string }{
		{DiagWarning, "caps/SKILL.md", "lower-case"},
		{DiagError, "nodesc/SKILL.md", "description is missing"},
		{DiagError, "broken/SKILL.md", "invalid YAML"},
		{DiagWarning, "long/SKILL.md", "5000 characters"},
		{DiagCollision, "twin-b/SKILL.md", `"twin" is already taken`},
		{DiagError, "unreadable/SKILL.md", "cannot read"},
		{DiagWarning, "loop", "symbolic link loop"},
		{DiagWarning, "self", "symbolic link loop"},
		{DiagWarning, "dangling", "broken symbolic link"},
	}
	if os.Geteuid() != 0 {
		expect = append(expect, struct{ typ, path, text string }{DiagError, "locked/SKILL.md", "permission denied"})
	}
	for _, e := range expect {
		found := false
		for _, d := range set.Diagnostics {
			if d.Type == e.typ && d.Path == filepath.Join(skills, e.path) && strings.Contains(d.Message, e.text) {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s diagnostic for %s containing %q; got:\n%s", e.typ, e.path, e.text, dump(set.Diagnostics))
		}
	}
}

func dump(ds []Diagnostic) string {
	var sb strings.Builder
	for _, d := range ds {
		sb.WriteString(d.Type + " " + d.Path + ": " + d.Message + "\n")
	}
	return sb.String()
}

func TestSkillPathErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "notes.txt"), "x")
	set := Load(Options{Cwd: dir, NoBuiltins: true,
		SkillPaths:    []string{filepath.Join(dir, "missing"), filepath.Join(dir, "notes.txt")},
		TemplatePaths: []string{filepath.Join(dir, "missing.md"), filepath.Join(dir, "notes.txt")},
	})
	if len(set.Diagnostics) != 4 {
		t.Fatalf("diagnostics:\n%s", dump(set.Diagnostics))
	}
	for _, d := range set.Diagnostics {
		if d.Type != DiagError || d.Path == "" {
			t.Errorf("%+v", d)
		}
	}
}

func TestSymlinkedDuplicateIsSkippedSilently(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a", "one", "SKILL.md"), "---\ndescription: d\n---\n")
	if err := os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	set := Load(Options{Cwd: dir, NoBuiltins: true, SkillPaths: []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}})
	if len(set.Skills) != 1 || len(set.Diagnostics) != 0 {
		t.Fatalf("skills %v diagnostics\n%s", set.Skills, dump(set.Diagnostics))
	}
}

func mkWrite(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}
