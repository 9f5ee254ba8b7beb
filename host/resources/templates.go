package resources

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxFallbackDescription is the length of a description taken from the
// first line of a template's body.
const maxFallbackDescription = 60

// parseTemplate builds a template from the text of its file. The name is
// the file name without ".md".
func parseTemplate(text, path, name string, info SourceInfo) (Template, []Diagnostic, bool) {
	var diags []Diagnostic
	diag := func(typ, msg string) {
		diags = append(diags, Diagnostic{Type: typ, ResourceType: KindPrompt, Message: msg, Path: path})
	}
	if name == "" || strings.ContainsFunc(name, unicode.IsSpace) {
		diag(DiagError, "the file name holds blanks, so /"+name+" could never be typed; template not loaded")
		return Template{}, diags, false
	}
	doc, err := ParseDocument(text)
	if err != nil {
		diag(DiagError, err.Error()+"; template not loaded")
		return Template{}, diags, false
	}
	if doc.Warning != "" {
		diag(DiagWarning, doc.Warning)
	}
	desc, _, err := doc.stringField("description")
	if err != nil {
		diag(DiagWarning, err.Error()+"; ignored")
	}
	hint, _, err := doc.stringField("argument-hint")
	if err != nil {
		diag(DiagWarning, err.Error()+"; ignored")
	}
	desc = strings.TrimSpace(desc)
	if desc == "" {
		desc = firstLine(doc.Body, maxFallbackDescription)
	}
	info.Path = path
	return Template{
		Name: name, Description: desc, ArgumentHint: strings.TrimSpace(hint),
		Path: path, Content: doc.Body, Fields: doc.Fields, Info: info,
	}, diags, true
}

// firstLine returns the first non-blank line of s, shortened to at most
// limit characters (with "..." added when cut).
func firstLine(s string, limit int) string {
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) <= limit {
			return line
		}
		r := []rune(line)
		return strings.TrimRight(string(r[:limit]), " ") + "..."
	}
	return ""
}
