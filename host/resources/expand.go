package resources

import (
	"github.com/atomic-go/atomic/internal/fsutil"
	"strings"
)

// Expansion says what Expand did.
type Expansion struct {
	Kind string // KindSkill, KindPrompt, or "" when the text was left alone
	Name string
	Path string
	// UnterminatedQuote is set when a template's arguments had a quote
	// that was never closed (it ran to the end of the text).
	UnterminatedQuote bool
}

// SkillCommandPrefix starts a skill invocation: /skill:name args.
const SkillCommandPrefix = "/skill:"

// Expand expands a skill invocation ("/skill:name args") or a template
// invocation ("/name args"). The name ends at the first blank (space, tab
// or line break). Text that is neither, or names something unknown, is
// returned unchanged, so that it reaches the model as typed.
func (set *Set) Expand(text string) (string, Expansion) {
	if set == nil || !strings.HasPrefix(text, "/") {
		return text, Expansion{}
	}
	if strings.HasPrefix(text, SkillCommandPrefix) {
		name, args := splitCommand(text[len(SkillCommandPrefix):])
		if sk, ok := set.Skill(name); ok {
			return SkillBlock(sk, sk.currentBody(), strings.TrimSpace(args)), Expansion{Kind: KindSkill, Name: name, Path: sk.FilePath}
		}
	}
	name, rest := splitCommand(text[1:])
	t, ok := set.Template(name)
	if !ok {
		return text, Expansion{}
	}
	args, open := ParseArgs(rest)
	return SubstituteArgs(t.Content, args), Expansion{Kind: KindPrompt, Name: name, Path: t.Path, UnterminatedQuote: open}
}

// splitCommand splits "name rest" at the first blank; rest starts after
// that blank.
func splitCommand(s string) (name, rest string) {
	i := strings.IndexAny(s, " \t\r\n")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i+1:]
}

// currentBody re-reads the skill's file, so that an edited skill is used
// without a reload; it falls back to the body read at load time.
func (sk Skill) currentBody() string {
	if strings.HasPrefix(sk.FilePath, BuiltinPrefix) {
		return sk.body
	}
	data, err := fsutil.ReadRegular(sk.FilePath, fsutil.MaxResourceFile)
	if err != nil {
		return sk.body
	}
	doc, err := ParseDocument(string(data))
	if err != nil {
		return sk.body
	}
	return doc.Body
}

// SkillBlock is the text a /skill:name invocation becomes: the skill's
// body wrapped in a <skill> element naming the skill and its file, then
// the arguments, if any, after a blank line. Clients parse this shape
// back, so it is kept exactly.
func SkillBlock(sk Skill, body, args string) string {
	var sb strings.Builder
	sb.WriteString(`<skill name="`)
	sb.WriteString(xmlEscape(sk.Name))
	sb.WriteString(`" location="`)
	sb.WriteString(xmlEscape(sk.FilePath))
	sb.WriteString("\">\n")
	sb.WriteString("Relative paths in this skill are resolved against ")
	sb.WriteString(sk.BaseDir)
	sb.WriteString(".\n\n")
	sb.WriteString(body)
	sb.WriteString("\n</skill>")
	if args != "" {
		sb.WriteString("\n\n")
		sb.WriteString(args)
	}
	return sb.String()
}

var xmlReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func xmlEscape(s string) string { return xmlReplacer.Replace(s) }
