package resources

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of the Agent Skills format.
const (
	MaxSkillNameLen        = 64
	MaxSkillDescriptionLen = 1024
)

// SkillFileName is the file that makes a directory a skill.
const SkillFileName = "SKILL.md"

// parseSkill builds a skill from the text of its file. defaultName is used
// when the front matter has no name (the skill's directory name, or the
// file name for a bare .md skill). It returns ok=false when the skill
// cannot be used; the diagnostics say why, or what is merely wrong.
func parseSkill(text, filePath, defaultName string, info SourceInfo) (Skill, []Diagnostic, bool) {
	var diags []Diagnostic
	fail := func(msg string) (Skill, []Diagnostic, bool) {
		diags = append(diags, Diagnostic{Type: DiagError, ResourceType: KindSkill, Message: msg, Path: filePath})
		return Skill{}, diags, false
	}
	warn := func(msg string) {
		diags = append(diags, Diagnostic{Type: DiagWarning, ResourceType: KindSkill, Message: msg, Path: filePath})
	}
	doc, err := ParseDocument(text)
	if err != nil {
		return fail(err.Error() + "; skill not loaded")
	}
	if doc.Warning != "" {
		warn(doc.Warning)
	}
	name, hasName, err := doc.stringField("name")
	if err != nil {
		return fail(err.Error() + "; skill not loaded")
	}
	name = strings.TrimSpace(name)
	if !hasName || name == "" {
		name = defaultName
	}
	if name == "" || strings.ContainsFunc(name, unicode.IsSpace) {
		return fail(fmt.Sprintf("name %q contains blanks, so /skill:%s could never be typed; skill not loaded", name, name))
	}
	desc, _, err := doc.stringField("description")
	if err != nil {
		return fail(err.Error() + "; skill not loaded")
	}
	desc = strings.TrimSpace(desc)
	if desc == "" {
		return fail("description is missing or empty; a skill needs one so the model knows when to use it; skill not loaded")
	}
	for _, problem := range validateSkillName(name) {
		warn(problem)
	}
	if hasName && filepath.Base(filePath) == SkillFileName {
		if dir := filepath.Base(filepath.Dir(filePath)); dir != name {
			warn(fmt.Sprintf("name %q differs from its directory name %q", name, dir))
		}
	}
	if n := utf8.RuneCountInString(desc); n > MaxSkillDescriptionLen {
		warn(fmt.Sprintf("description is %d characters long; the limit is %d (it is shortened in the system prompt)", n, MaxSkillDescriptionLen))
	}
	disable, _, err := doc.boolField("disable-model-invocation")
	if err != nil {
		warn(err.Error() + "; treated as false")
	}
	info.Path = filePath
	return Skill{
		Name: name, Description: desc, FilePath: filePath, BaseDir: filepath.Dir(filePath),
		DisableModelInvocation: disable, Fields: doc.Fields, Info: info, body: doc.Body,
	}, diags, true
}

// validateSkillName checks a name against the Agent Skills rules and
// returns every rule it breaks.
func validateSkillName(name string) []string {
	var out []string
	if n := utf8.RuneCountInString(name); n > MaxSkillNameLen {
		out = append(out, fmt.Sprintf("name is %d characters long; the limit is %d", n, MaxSkillNameLen))
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			out = append(out, fmt.Sprintf("name %q may only hold lower-case letters a-z, digits and hyphens", name))
			break
		}
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		out = append(out, fmt.Sprintf("name %q must not begin or end with a hyphen", name))
	}
	if strings.Contains(name, "--") {
		out = append(out, fmt.Sprintf("name %q must not hold two hyphens in a row", name))
	}
	return out
}
