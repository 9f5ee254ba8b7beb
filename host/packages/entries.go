package packages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/atomic-go/atomic/internal/fsutil"
	"os"
)

// Resource types a package can contribute, in the order they are listed.
const (
	TypeExtensions = "extensions"
	TypeSkills     = "skills"
	TypePrompts    = "prompts"
	TypeThemes     = "themes"
)

// Types lists the resource types.
var Types = []string{TypeExtensions, TypeSkills, TypePrompts, TypeThemes}

// Filter narrows what a package contributes, per resource type: a type
// that is absent loads everything the package offers, an empty list
// loads none, "!pattern" excludes glob matches, "+path" and "-path"
// force one exact path in or out.
type Filter map[string][]string

// Entry is one element of a settings file's "packages" list: a source
// string, or {"source": …, "extensions": [...], "skills": [...],
// "prompts": [...], "themes": [...]}.
type Entry struct {
	Source string
	// Filter is nil for the string form.
	Filter Filter
	// Scope and File say which settings file lists the entry ("" for the
	// command line).
	Scope, File string
}

// Problem is an entry or a resource that could not be used.
type Problem struct {
	Source  string `json:"source,omitempty"`
	Scope   string `json:"scope,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// ReadEntries reads the "packages" list of one settings file. A missing
// file or key is an empty list; bad entries are problems and skipped.
func ReadEntries(file, scope string) ([]Entry, []Problem) {
	data, err := fsutil.ReadRegular(file, fsutil.MaxSettingsFile)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, []Problem{{Scope: scope, Path: file, Message: "cannot read settings: " + err.Error()}}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var doc struct {
		Packages json.RawMessage `json:"packages"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, []Problem{{Scope: scope, Path: file, Message: "settings are not valid JSON; packages skipped: " + err.Error()}}
	}
	if len(doc.Packages) == 0 || string(doc.Packages) == "null" {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(doc.Packages, &list); err != nil {
		return nil, []Problem{{Scope: scope, Path: file, Message: `"packages" must be a list`}}
	}
	var out []Entry
	var probs []Problem
	for _, raw := range list {
		e, err := parseEntry(raw)
		if err != nil {
			probs = append(probs, Problem{Scope: scope, Path: file, Message: err.Error()})
			continue
		}
		e.Scope, e.File = scope, file
		out = append(out, e)
	}
	return out, probs
}

func parseEntry(raw json.RawMessage) (Entry, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return Entry{}, fmt.Errorf("empty package source in \"packages\"")
		}
		return Entry{Source: s}, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return Entry{}, fmt.Errorf("invalid \"packages\" entry %s: use a source or {\"source\": ...}", raw)
	}
	var e Entry
	if err := json.Unmarshal(obj["source"], &e.Source); err != nil || e.Source == "" {
		return Entry{}, fmt.Errorf("invalid \"packages\" entry %s: \"source\" must be a string", raw)
	}
	e.Filter = Filter{}
	for _, t := range Types {
		v, ok := obj[t]
		if !ok || string(v) == "null" {
			continue
		}
		var pats []string
		if err := json.Unmarshal(v, &pats); err != nil {
			return Entry{}, fmt.Errorf("package %s: %q must be a list of patterns", e.Source, t)
		}
		if pats == nil {
			pats = []string{}
		}
		e.Filter[t] = pats
	}
	return e, nil
}
