package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one MCP tool as an agent tool.
type Tool struct {
	srv         *server
	name        string // mcp__<server>__<tool>
	remote      string // the server's name of the tool
	description string
	params      json.RawMessage
	exposure    string
}

var _ tools.Tool = (*Tool)(nil)

// Name implements tools.Tool.
func (t *Tool) Name() string { return t.name }

// Description implements tools.Tool.
func (t *Tool) Description() string { return t.description }

// Parameters implements tools.Tool.
func (t *Tool) Parameters() json.RawMessage { return t.params }

// Server returns the name of the tool's server.
func (t *Tool) Server() string { return t.srv.def.Name }

// Execute implements tools.Tool: the call goes to the server (connecting
// it first if it is disconnected); progress notifications become partial
// results; cancelling ctx cancels the request.
// The call runs under the foreign-tool rules (host/tools.RunForeign): the
// deadline of settings timeouts.tool and the caps on every result.
func (t *Tool) Execute(ctx context.Context, call tools.Call) (llm.ToolResult, error) {
	source := fmt.Sprintf("MCP server %q", t.srv.def.Name)
	return tools.RunForeign(ctx, call, t.name, source, t.srv.m.opts.ToolTimeout,
		func(ctx context.Context, update func(llm.ToolResult)) (llm.ToolResult, error) {
			return t.execute(ctx, call, update)
		})
}

func (t *Tool) execute(ctx context.Context, call tools.Call, update func(llm.ToolResult)) (llm.ToolResult, error) {
	var res *mcp.CallToolResult
	details := map[string]any{"server": t.srv.def.Name, "tool": t.remote}
	progress := func(p *mcp.ProgressNotificationParams) {
		text := p.Message
		if text == "" {
			text = fmt.Sprintf("Progress %g", p.Progress)
			if p.Total > 0 {
				text += fmt.Sprintf("/%g", p.Total)
			}
		}
		update(llm.ToolResult{Content: []llm.ContentBlock{llm.Text(text)}, Details: details})
	}
	err := t.srv.call(ctx, "tool "+t.remote, progress, func(ctx context.Context, sess *mcp.ClientSession, token string) error {
		args := call.Args
		if args == nil {
			args = map[string]any{}
		}
		p := &mcp.CallToolParams{Name: t.remote, Arguments: args}
		p.SetProgressToken(token)
		var err error
		res, err = sess.CallTool(ctx, p)
		return err
	})
	if err != nil {
		return llm.ToolResult{}, err
	}
	out := llm.ToolResult{Content: toContent(t.srv.def.Name, res.Content, t.srv.m.res.readable()), Details: details}
	if len(out.Content) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			out.Content = []llm.ContentBlock{llm.Text(string(b))}
		}
	}
	if res.IsError {
		text := out.ResultText()
		if strings.TrimSpace(text) == "" {
			text = fmt.Sprintf("MCP tool %s/%s returned an error", t.srv.def.Name, t.remote)
		}
		return llm.ToolResult{}, &tools.ErrorWithResult{Result: out, Err: errors.New(text)}
	}
	return out, nil
}

// limit bounds a resource tool's result as foreign tool results are
// (host/tools.BoundResult).
func (m *Manager) limit(r llm.ToolResult) llm.ToolResult {
	return tools.BoundResult(r, "an MCP server")
}

// toContent maps MCP content blocks to the model's: text, images, embedded
// text resources as text, other binary data and resource links as a note.
func toContent(server string, blocks []mcp.Content, readable bool) []llm.ContentBlock {
	out := []llm.ContentBlock{}
	for _, b := range blocks {
		switch c := b.(type) {
		case *mcp.TextContent:
			out = append(out, llm.Text(c.Text))
		case *mcp.ImageContent:
			out = append(out, llm.Image(base64.StdEncoding.EncodeToString(c.Data), c.MIMEType))
		case *mcp.AudioContent:
			out = append(out, llm.Text(fmt.Sprintf("[Audio %s, %d bytes]", c.MIMEType, len(c.Data))))
		case *mcp.ResourceLink:
			title := c.Title
			if title == "" {
				title = c.Name
			}
			text := fmt.Sprintf("[Resource %s %q", c.URI, title)
			if c.MIMEType != "" {
				text += " (" + c.MIMEType + ")"
			}
			if c.Description != "" {
				text += ": " + c.Description
			}
			if readable {
				text += fmt.Sprintf(". Read it with %s (server %q)", readResourceTool, server)
			}
			out = append(out, llm.Text(text+"]"))
		case *mcp.EmbeddedResource:
			out = append(out, resourceContent(c.Resource)...)
		default:
			if raw, err := json.Marshal(b); err == nil {
				out = append(out, llm.Text(string(raw)))
			}
		}
	}
	return out
}

// resourceContent maps one resource's contents.
func resourceContent(r *mcp.ResourceContents) []llm.ContentBlock {
	if r == nil {
		return nil
	}
	switch {
	case r.Blob == nil:
		return []llm.ContentBlock{llm.Text(r.Text)}
	case strings.HasPrefix(r.MIMEType, "image/"):
		return []llm.ContentBlock{llm.Image(base64.StdEncoding.EncodeToString(r.Blob), r.MIMEType)}
	case isTextMIME(r.MIMEType):
		return []llm.ContentBlock{llm.Text(string(r.Blob))}
	}
	mime := r.MIMEType
	if mime == "" {
		mime = "unknown type"
	}
	return []llm.ContentBlock{llm.Text(fmt.Sprintf("[Binary resource %s (%s, %d bytes)]", r.URI, mime, len(r.Blob)))}
}

func isTextMIME(m string) bool {
	m = strings.ToLower(strings.TrimSpace(strings.SplitN(m, ";", 2)[0]))
	return strings.HasPrefix(m, "text/") || m == "application/json" || strings.HasSuffix(m, "+json") || strings.HasSuffix(m, "+xml")
}

// Bounds of a server's list answers: pages followed, and tools kept. A
// server past them fails to connect with an error that says so (a list
// that pages forever would otherwise grow without end).
const (
	maxListPages = 100
	maxTools     = 10000
)

// listTools fetches the server's tools (every page, within the bounds)
// and registers them; it reports whether they changed.
func (s *server) listTools(ctx context.Context, sess *mcp.ClientSession, gen int) (bool, error) {
	var list []*mcp.Tool
	cursor := ""
	seen := map[string]bool{}
	for page := 1; ; page++ {
		res, err := sess.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return false, fmt.Errorf("tools/list: %w", err)
		}
		list = append(list, res.Tools...)
		if len(list) > maxTools {
			return false, fmt.Errorf("tools/list: more than %d tools; refusing the server's list", maxTools)
		}
		if res.NextCursor == "" {
			break
		}
		if seen[res.NextCursor] {
			return false, fmt.Errorf("tools/list: page %d repeats the cursor %.40q of an earlier page", page, res.NextCursor)
		}
		if page >= maxListPages {
			return false, fmt.Errorf("tools/list: still paging after %d pages; refusing the server's list", maxListPages)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
	s.mu.Lock()
	stale := s.gen != gen
	s.mu.Unlock()
	if stale {
		return false, nil
	}
	return s.setTools(list), nil
}

// toolsChanged follows notifications/tools/list_changed: one refresh runs
// at a time; notifications meanwhile ask for one more after it (so that
// the last change is always fetched), however many they are.
func (s *server) toolsChanged(gen int) {
	s.mu.Lock()
	if s.refreshing {
		s.refreshPending = true
		s.mu.Unlock()
		return
	}
	s.refreshing = true
	s.mu.Unlock()
	go func() {
		for {
			s.refreshTools(gen)
			s.mu.Lock()
			if !s.refreshPending || s.gen != gen {
				s.refreshing, s.refreshPending = false, false
				s.mu.Unlock()
				return
			}
			s.refreshPending = false
			s.mu.Unlock()
		}
	}()
}

// refreshTools fetches the list again: new tools are added, withdrawn
// ones removed; an event tells of an actual change only.
func (s *server) refreshTools(gen int) {
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	if sess == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout())
	defer cancel()
	changed, err := s.listTools(ctx, sess, gen)
	if err != nil {
		s.m.opts.Log.Warn("mcp tools/list failed after list_changed", "server", s.def.Name, "error", s.redact(err.Error()))
		return
	}
	if s.m.opts.OnChange != nil && changed {
		s.m.opts.OnChange(s.status())
	}
}

// setTools replaces the server's tools in the registry. Direct tools are
// active; deferred ones stay inactive until mcp_tool_search loads them
// (a loaded tool that is still offered stays loaded); hidden ones are not
// registered. It reports whether anything changed.
func (s *server) setTools(list []*mcp.Tool) bool {
	reg := s.m.opts.Tools
	cfg := &s.def.Config
	// Names that sanitise alike all get the hash suffix.
	count := map[string]int{}
	for _, t := range list {
		count[ToolName(s.def.Name, t.Name, nil)]++
	}
	next := map[string]*Tool{}
	for _, t := range list {
		exp := cfg.ToolExposureOf(t.Name)
		if exp == tools.ExposureHidden {
			continue
		}
		name := ToolName(s.def.Name, t.Name, func(n string) bool {
			if count[n] > 1 || next[n] != nil {
				return true
			}
			if reg == nil {
				return false
			}
			other, ok := reg.Get(n)
			if !ok {
				return false
			}
			mt, mine := other.(*Tool)
			return !mine || mt.srv.def.Name != s.def.Name
		})
		next[name] = &Tool{srv: s, name: name, remote: t.Name, description: toolDescription(s.def.Name, t), params: inputSchema(t.InputSchema), exposure: exp}
	}
	s.mu.Lock()
	prev := s.tools
	if sameTools(prev, next) {
		s.mu.Unlock()
		return false // nothing changed: the registry stays as it is
	}
	s.tools = next
	s.mu.Unlock()
	if reg == nil {
		return true
	}
	for name := range prev {
		if _, ok := next[name]; !ok {
			reg.Remove(name)
		}
	}
	for name, t := range next {
		active := t.exposure == tools.ExposureDirect
		if old, ok := prev[name]; ok && old.exposure == t.exposure && reg.IsActive(name) {
			active = true // loaded by mcp_tool_search earlier
		}
		reg.Add(t, active)
	}
	return true
}

func sameTools(a, b map[string]*Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for name, x := range a {
		y, ok := b[name]
		if !ok || x.remote != y.remote || x.exposure != y.exposure || x.description != y.description || string(x.params) != string(y.params) {
			return false
		}
	}
	return true
}

func toolDescription(server string, t *mcp.Tool) string {
	if d := strings.TrimSpace(t.Description); d != "" {
		return d
	}
	if t.Title != "" {
		return t.Title
	}
	if t.Annotations != nil && t.Annotations.Title != "" {
		return t.Annotations.Title
	}
	return fmt.Sprintf("MCP tool %s from server %s", t.Name, server)
}

// inputSchema returns the tool's input schema as an object schema (some
// providers reject object schemas without properties).
func inputSchema(schema any) json.RawMessage {
	var m map[string]any
	if b, err := json.Marshal(schema); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	if m == nil {
		m = map[string]any{}
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	b, _ := json.Marshal(m)
	return b
}
