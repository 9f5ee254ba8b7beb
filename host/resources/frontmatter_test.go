package resources

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseDocument(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		fields  map[string]any
		body    string
		hasFM   bool
		wantErr string
	}{
		{name: "no front matter", in: "# Title\n\nBody\n", body: "# Title\n\nBody"},
		{name: "simple", in: "---\nname: x\ndescription: Does x.\n---\nBody text\n", fields: map[string]any{"name": "x", "description": "Does x."}, body: "Body text", hasFM: true},
		{name: "CRLF", in: "---\r\nname: x\r\n---\r\nline1\r\nline2\r\n", fields: map[string]any{"name": "x"}, body: "line1\nline2", hasFM: true},
		{name: "BOM", in: "\ufeff---\nname: x\n---\nb", fields: map[string]any{"name": "x"}, body: "b", hasFM: true},
		{name: "trailing blanks on fences", in: "---  \nname: x\n---\t\nb", fields: map[string]any{"name": "x"}, body: "b", hasFM: true},
		{name: "empty block", in: "---\n---\nbody", body: "body", hasFM: true},
		{name: "no body", in: "---\nname: x\n---", fields: map[string]any{"name": "x"}, body: "", hasFM: true},
		{name: "unknown fields kept", in: "---\nname: x\nlicense: MIT\nmetadata:\n  team: infra\nallowed-tools: read bash\n---\n", fields: map[string]any{"name": "x", "license": "MIT", "metadata": map[string]any{"team": "infra"}, "allowed-tools": "read bash"}, hasFM: true},
		{name: "folded description", in: "---\ndescription: >\n  one\n  two\n---\n", fields: map[string]any{"description": "one two\n"}, hasFM: true},
		{name: "dashes inside body", in: "---\na: 1\n---\nx\n---\ny", fields: map[string]any{"a": 1}, body: "x\n---\ny", hasFM: true},
		{name: "fence not on first line", in: "\n---\na: 1\n---\n", body: "---\na: 1\n---"},
		{name: "broken YAML", in: "---\nname: [unclosed\n---\nbody", body: "body", hasFM: true, wantErr: "invalid YAML front matter"},
		{name: "tab indentation", in: "---\nname: x\n\tdescription: y\n---\n", hasFM: true, wantErr: "invalid YAML front matter"},
		{name: "list at top level", in: "---\n- a\n- b\n---\n", hasFM: true, wantErr: "expected key: value pairs, got a list"},
		{name: "scalar at top level", in: "---\njust text\n---\n", hasFM: true, wantErr: "expected key: value pairs"},
		{name: "unquoted colon read as plain lines", in: "---\nname: x\ndescription: Use when: the build breaks\n---\nb", fields: map[string]any{"name": "x", "description": "Use when: the build breaks"}, body: "b", hasFM: true},
		{name: "unquoted colon with other YAML stays an error", in: "---\nname: x\ndescription: a: b\ntags: [a, b]\n---\n", hasFM: true, wantErr: "invalid YAML"},
		{name: "unclosed", in: "---\nname: x\nbody", body: "---\nname: x\nbody", wantErr: "not closed"},
	}
	for _, tt := range tests {
		doc, err := ParseDocument(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.wantErr)
			}
		} else if err != nil {
			t.Errorf("%s: unexpected error %v", tt.name, err)
		}
		if tt.wantErr == "" && !reflect.DeepEqual(doc.Fields, tt.fields) {
			t.Errorf("%s: fields %#v, want %#v", tt.name, doc.Fields, tt.fields)
		}
		if doc.Body != tt.body && !(tt.wantErr != "" && tt.body == "") {
			t.Errorf("%s: body %q, want %q", tt.name, doc.Body, tt.body)
		}
		if doc.HasFrontMatter != tt.hasFM {
			t.Errorf("%s: HasFrontMatter %v, want %v", tt.name, doc.HasFrontMatter, tt.hasFM)
		}
	}
}

func TestParseSkill(t *testing.T) {
	info := SourceInfo{Source: SourceAuto, Scope: ScopeUser, Origin: OriginTopLevel}
	tests := []struct {
		name      string
		path      string
		text      string
		ok        bool
		wantName  string
		disable   bool
		diagTypes []string // expected diagnostic types, in order
		diagText  []string // substrings of the diagnostics' messages
	}{
		{name: "valid", path: "/s/pdf/SKILL.md", text: "---\nname: pdf\ndescription: Work with PDFs.\n---\nbody", ok: true, wantName: "pdf"},
		{name: "name from directory", path: "/s/lint-fix/SKILL.md", text: "---\ndescription: Fix lint.\n---\n", ok: true, wantName: "lint-fix"},
		{name: "capitals", path: "/s/MySkill/SKILL.md", text: "---\nname: MySkill\ndescription: d\n---\n", ok: true, wantName: "MySkill",
			diagTypes: []string{DiagWarning}, diagText: []string{"lower-case"}},
		{name: "name differs from directory", path: "/s/a/SKILL.md", text: "---\nname: b\ndescription: d\n---\n", ok: true, wantName: "b",
			diagTypes: []string{DiagWarning}, diagText: []string{`differs from its directory name "a"`}},
		{name: "hyphens", path: "/s/-x--y-/SKILL.md", text: "---\ndescription: d\n---\n", ok: true, wantName: "-x--y-",
			diagTypes: []string{DiagWarning, DiagWarning}, diagText: []string{"begin or end with a hyphen", "two hyphens"}},
		{name: "name too long", path: "/s/x/SKILL.md", text: "---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\n", ok: true, wantName: strings.Repeat("a", 65),
			diagTypes: []string{DiagWarning, DiagWarning}, diagText: []string{"65 characters", "differs"}},
		{name: "blank in name", path: "/s/x/SKILL.md", text: "---\nname: my skill\ndescription: d\n---\n", diagTypes: []string{DiagError}, diagText: []string{"blanks"}},
		{name: "missing description", path: "/s/x/SKILL.md", text: "---\nname: x\n---\nbody", diagTypes: []string{DiagError}, diagText: []string{"description is missing"}},
		{name: "blank description", path: "/s/x/SKILL.md", text: "---\ndescription: '  '\n---\n", diagTypes: []string{DiagError}, diagText: []string{"description is missing"}},
		{name: "no front matter", path: "/s/x/SKILL.md", text: "# Just a body", diagTypes: []string{DiagError}, diagText: []string{"description is missing"}},
		{name: "description too long", path: "/s/x/SKILL.md", text: "---\ndescription: " + strings.Repeat("w", 5000) + "\n---\n", ok: true, wantName: "x",
			diagTypes: []string{DiagWarning}, diagText: []string{"5000 characters"}},
		{name: "broken YAML", path: "/s/x/SKILL.md", text: "---\ndescription: \"open\n---\n", diagTypes: []string{DiagError}, diagText: []string{"invalid YAML"}},
		{name: "unquoted colon", path: "/s/x/SKILL.md", text: "---\ndescription: Use when: tests fail\n---\n", ok: true, wantName: "x",
			diagTypes: []string{DiagWarning}, diagText: []string{"Quote values"}},
		{name: "description is a list", path: "/s/x/SKILL.md", text: "---\ndescription: [a, b]\n---\n", diagTypes: []string{DiagError}, diagText: []string{"must be text"}},
		{name: "numeric description", path: "/s/x/SKILL.md", text: "---\ndescription: 42\n---\n", ok: true, wantName: "x"},
		{name: "disabled for the model", path: "/s/x/SKILL.md", text: "---\ndescription: d\ndisable-model-invocation: true\n---\n", ok: true, wantName: "x", disable: true},
		{name: "bad disable flag", path: "/s/x/SKILL.md", text: "---\ndescription: d\ndisable-model-invocation: sometimes\n---\n", ok: true, wantName: "x",
			diagTypes: []string{DiagWarning}, diagText: []string{"true or false"}},
		{name: "bare md file", path: "/s/notes.md", text: "---\ndescription: d\n---\n", ok: true, wantName: "notes"},
	}
	for _, tt := range tests {
		def := dirName(tt.path)
		sk, diags, ok := parseSkill(tt.text, tt.path, def, info)
		if ok != tt.ok {
			t.Errorf("%s: ok=%v, want %v (diags %+v)", tt.name, ok, tt.ok, diags)
			continue
		}
		if len(diags) != len(tt.diagTypes) {
			t.Errorf("%s: diagnostics %+v, want types %v", tt.name, diags, tt.diagTypes)
			continue
		}
		for i, d := range diags {
			if d.Type != tt.diagTypes[i] || !strings.Contains(d.Message, tt.diagText[i]) || d.Path != tt.path || d.ResourceType != KindSkill {
				t.Errorf("%s: diagnostic %d = %+v, want type %s containing %q", tt.name, i, d, tt.diagTypes[i], tt.diagText[i])
			}
		}
		if !ok {
			continue
		}
		if sk.Name != tt.wantName || sk.DisableModelInvocation != tt.disable || sk.FilePath != tt.path || sk.Info.Path != tt.path {
			t.Errorf("%s: got %+v", tt.name, sk)
		}
	}
}

// dirName is the default name parseSkill gets from the scanner.
func dirName(p string) string {
	parts := strings.Split(p, "/")
	if parts[len(parts)-1] == SkillFileName {
		return parts[len(parts)-2]
	}
	return strings.TrimSuffix(parts[len(parts)-1], ".md")
}

func TestParseTemplate(t *testing.T) {
	info := SourceInfo{Source: SourceAuto, Scope: ScopeProject}
	tm, diags, ok := parseTemplate("---\ndescription: Review code\nargument-hint: <file>\n---\nReview $1\n", "/p/review.md", "review", info)
	if !ok || len(diags) != 0 || tm.Name != "review" || tm.Description != "Review code" || tm.ArgumentHint != "<file>" || tm.Content != "Review $1" {
		t.Fatalf("got %+v %+v %v", tm, diags, ok)
	}
	tm, _, _ = parseTemplate("\n\n  Summarise the last commit in a few bullet points for the release notes please  \nmore", "/p/s.md", "s", info)
	if tm.Description != "Summarise the last commit in a few bullet points for the rel..." {
		t.Fatalf("fallback description %q", tm.Description)
	}
	tm, _, _ = parseTemplate("Short first line\nsecond", "/p/s.md", "s", info)
	if tm.Description != "Short first line" {
		t.Fatalf("fallback description %q", tm.Description)
	}
	_, diags, ok = parseTemplate("---\ndescription: [broken\n---\nx", "/p/b.md", "b", info)
	if ok || len(diags) != 1 || diags[0].Type != DiagError || diags[0].Path != "/p/b.md" {
		t.Fatalf("broken front matter: %+v %v", diags, ok)
	}
	_, diags, ok = parseTemplate("x", "/p/a b.md", "a b", info)
	if ok || len(diags) != 1 {
		t.Fatalf("name with a blank: %+v %v", diags, ok)
	}
}

// FuzzParseDocument checks that no file content makes the front matter
// parser panic, and that a file without a front matter block is its own
// body.
func FuzzParseDocument(f *testing.F) {
	f.Add("---\nname: x\ndescription: y\n---\nbody")
	f.Add("---\na: [1, {b: c}]\n---\n")
	f.Add("---\n&a x: *a\n---\n")
	f.Add("---\ndescription: a: b\n---\n")
	f.Add("no front matter")
	f.Fuzz(func(t *testing.T, text string) {
		doc, err := ParseDocument(text)
		if err == nil && !doc.HasFrontMatter && doc.Body != strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(strings.TrimPrefix(text, "\ufeff"), "\r\n", "\n"), "\r", "\n")) {
			t.Fatalf("body of a file without front matter changed: %q -> %q", text, doc.Body)
		}
	})
}
