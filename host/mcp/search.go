package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/tools"
)

// SearchToolName is the tool that finds deferred MCP tools and loads them
// for the next request.
const SearchToolName = "mcp_tool_search"

const searchLimit = 8

// searchTool implements mcp_tool_search.
type searchTool struct{ m *Manager }

var (
	_ tools.Tool     = (*searchTool)(nil)
	_ tools.Prompted = (*searchTool)(nil)
)

func (*searchTool) Name() string { return SearchToolName }

func (*searchTool) Description() string {
	return "Search the tools of the connected MCP servers that are not declared yet, by name or description, " +
		"and load the best matches: they can be called from the next step on. " +
		"Use it when a task needs a capability none of your current tools has."
}

func (*searchTool) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"query":{"type":"string","description":"Words describing the capability, or a tool name"},` +
		`"limit":{"type":"integer","minimum":1,"maximum":20,"description":"Most tools to load (default 8)"}` +
		`},"required":["query"]}`)
}

// PromptSnippet implements tools.Prompted: the servers whose tools are
// found through the search, with their configured descriptions (stable, so
// the system prompt does not change as servers connect).
func (t *searchTool) PromptSnippet() string {
	var parts []string
	for _, s := range t.m.list() {
		if _, d := s.def.Config.Reaches(); !d || !s.def.Config.IsEnabled() {
			continue
		}
		p := s.def.Name
		if d := firstLine(s.def.Config.Description); d != "" {
			p += " (" + d + ")"
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return ""
	}
	return "Find and load tools of MCP servers: " + strings.Join(parts, ", ")
}

func (*searchTool) PromptGuidelines() []string { return nil }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// Execute ranks the deferred tools against the query and activates the
// best matches.
func (t *searchTool) Execute(ctx context.Context, call tools.Call) (llm.ToolResult, error) {
	query, _ := call.Args["query"].(string)
	limit := searchLimit
	if f, ok := call.Args["limit"].(float64); ok && f >= 1 {
		limit = min(int(f), 20)
	}
	if strings.TrimSpace(query) == "" {
		return llm.ToolResult{}, fmt.Errorf("query must not be empty")
	}
	t.m.WaitAll(ctx, DirectWait)
	reg := t.m.opts.Tools
	var docs []searchDoc
	for _, s := range t.m.list() {
		for _, tool := range s.sortedTools() {
			if tool.exposure != tools.ExposureDeferred {
				continue
			}
			docs = append(docs, searchDoc{tool: tool, server: s.def.Name + " " + s.def.Config.Description})
		}
	}
	ranked := rank(query, docs, limit)
	if len(ranked) == 0 {
		return llm.TextResult(fmt.Sprintf("No MCP tool matches %q.", query)), nil
	}
	var b strings.Builder
	names := make([]string, 0, len(ranked))
	fmt.Fprintf(&b, "Loaded %d tool(s); call them directly from the next step:\n", len(ranked))
	for _, d := range ranked {
		names = append(names, d.tool.name)
		fmt.Fprintf(&b, "- %s: %s\n", d.tool.name, firstLine(d.tool.description))
	}
	if reg != nil {
		activate(reg, names)
	}
	return llm.ToolResult{Content: []llm.ContentBlock{llm.Text(strings.TrimRight(b.String(), "\n"))}, Details: map[string]any{"loaded": names}}, nil
}

// activate makes the named tools active, keeping the others as they are.
func activate(reg *tools.Registry, names []string) {
	active := reg.ActiveNames()
	for _, n := range names {
		if !reg.IsActive(n) {
			active = append(active, n)
		}
	}
	reg.SetActive(active)
}

type searchDoc struct {
	tool   *Tool
	server string
	score  float64
}

// rank scores tools by the query's words: a word in the tool's own name
// counts most, then in its description and parameter names, then in the
// server's name and description. A query that is a tool's exact name ranks
// it first. Tools matching more of the words rank above those matching
// fewer.
func rank(query string, docs []searchDoc, limit int) []searchDoc {
	q := strings.ToLower(strings.TrimSpace(query))
	terms := words(query)
	var out []searchDoc
	for _, d := range docs {
		local := strings.ToLower(d.tool.remote)
		if q == strings.ToLower(d.tool.name) || q == local {
			d.score = 1e6
			out = append(out, d)
			continue
		}
		name := set(words(d.tool.remote))
		text := set(words(d.tool.description + " " + paramText(d.tool.params)))
		server := set(words(d.server))
		covered := 0
		score := 0.0
		for _, w := range terms {
			s := 0.0
			if name[w] {
				s += 3
			}
			if text[w] {
				s += 1
			}
			if server[w] {
				s += 0.5
			}
			if s > 0 {
				covered++
			}
			score += s
		}
		if score == 0 {
			continue
		}
		d.score = float64(covered)*100 + score
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// paramText is the property names and descriptions of a schema.
func paramText(schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	var b strings.Builder
	for k, p := range s.Properties {
		b.WriteString(k + " " + p.Description + " ")
	}
	return b.String()
}

// words splits text into lower-case words at non-letters and camelCase
// boundaries, dropping a few stop words and a plural "s".
func words(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) == 0 {
			return
		}
		w := strings.ToLower(string(cur))
		cur = cur[:0]
		if stopWords[w] {
			return
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		out = append(out, w)
	}
	var prev rune
	for _, r := range text {
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, r)
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}

var stopWords = map[string]bool{"a": true, "an": true, "and": true, "the": true, "of": true, "to": true, "in": true, "for": true, "on": true, "or": true, "with": true, "is": true, "by": true, "from": true, "it": true, "this": true, "that": true}

func set(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}
