package resources

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Document is a Markdown file split into its YAML front matter and body.
type Document struct {
	// Fields holds every front matter field as decoded by YAML (nil when
	// the file has no front matter).
	Fields map[string]any
	// Body is the text after the front matter, trimmed.
	Body string
	// HasFrontMatter reports whether the file started with a front matter
	// block.
	HasFrontMatter bool
	// Warning is set when the front matter was not valid YAML but could be
	// read as plain "key: value" lines (see ParseDocument).
	Warning string
}

// ErrUnclosedFrontMatter is returned for a file whose first line opens a
// front matter block that no later "---" line closes.
var ErrUnclosedFrontMatter = errors.New("front matter is not closed: the opening --- line has no closing --- line")

// ParseDocument splits text into front matter and body. A front matter
// block starts at a first line "---" and ends at the next line "---"
// (trailing blanks allowed); line endings are normalised to LF and a UTF-8
// byte order mark is dropped. A block that is not valid YAML, or whose top
// level is not a mapping, is an error; the body is still returned.
func ParseDocument(text string) (Document, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	if strings.IndexByte(text, '\r') >= 0 {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return Document{Body: strings.TrimSpace(text)}, nil
	}
	// Find the closing line.
	yamlText, body, found := "", "", false
	for off := 0; off <= len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		next := len(rest) + 1
		if end >= 0 {
			line = rest[off : off+end]
			next = off + end + 1
		}
		if strings.TrimRight(line, " \t") == "---" {
			yamlText = rest[:off]
			if next <= len(rest) {
				body = rest[next:]
			}
			found = true
			break
		}
		off = next
	}
	if !found {
		return Document{Body: strings.TrimSpace(text)}, ErrUnclosedFrontMatter
	}
	doc := Document{Body: strings.TrimSpace(body), HasFrontMatter: true}
	if strings.TrimSpace(yamlText) == "" {
		return doc, nil
	}
	var node yaml.Node
	if err := yaml.Unmarshal([]byte(yamlText), &node); err != nil {
		if fields, ok := plainFields(yamlText); ok && strings.Contains(err.Error(), "mapping values are not allowed") {
			doc.Fields = fields
			doc.Warning = "front matter is not valid YAML (" + yamlMessage(err) + "); it was read as plain key: value lines. Quote values that contain \": \""
			return doc, nil
		}
		return doc, fmt.Errorf("invalid YAML front matter: %s", yamlMessage(err))
	}
	if len(node.Content) == 0 {
		return doc, nil
	}
	if top := node.Content[0]; top.Kind != yaml.MappingNode {
		return doc, fmt.Errorf("invalid YAML front matter: expected key: value pairs, got %s", kindName(top.Kind))
	}
	fields := map[string]any{}
	if err := node.Decode(&fields); err != nil {
		return doc, fmt.Errorf("invalid YAML front matter: %s", yamlMessage(err))
	}
	doc.Fields = fields
	return doc, nil
}

// plainFields reads front matter made only of "key: value" lines whose
// values are plain text. It is the fallback for the most common YAML
// mistake in skill files, an unquoted value holding ": " (as in
// "description: Use when: ..."), which YAML rejects. Anything that looks
// like other YAML syntax (quotes, lists, maps, block scalars, indented
// lines) is not accepted.
func plainFields(text string) (map[string]any, bool) {
	fields := map[string]any{}
	for line := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, found := strings.Cut(line, ":")
		if !found || key == "" || strings.TrimLeft(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			return nil, false
		}
		val = strings.TrimSpace(val)
		if val == "" || strings.ContainsRune("[{\"'|>&*!%@`#", rune(val[0])) {
			return nil, false
		}
		if _, dup := fields[key]; dup {
			return nil, false
		}
		fields[key] = val
	}
	return fields, len(fields) > 0
}

func yamlMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a single value"
	case yaml.AliasNode:
		return "an alias"
	}
	return "something else"
}

// stringField returns a front matter field as text. Scalars of other types
// (numbers, booleans) are formatted; lists and maps are an error.
func (d Document) stringField(key string) (string, bool, error) {
	v, ok := d.Fields[key]
	if !ok || v == nil {
		return "", false, nil
	}
	switch x := v.(type) {
	case string:
		return x, true, nil
	case bool, int, int64, uint64, float64:
		return fmt.Sprint(x), true, nil
	}
	return "", true, fmt.Errorf("%s must be text, not a list or a map", key)
}

// boolField returns a front matter field as a boolean; ok is false when it
// is absent, and err is set when it is present but not a boolean.
func (d Document) boolField(key string) (val, ok bool, err error) {
	v, present := d.Fields[key]
	if !present || v == nil {
		return false, false, nil
	}
	switch x := v.(type) {
	case bool:
		return x, true, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true":
			return true, true, nil
		case "false":
			return false, true, nil
		}
	}
	return false, true, fmt.Errorf("%s must be true or false", key)
}
