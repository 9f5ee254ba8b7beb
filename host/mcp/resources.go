package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Names of the resource tools (the names Codex, OpenCode and pi use).
const (
	listResourcesTool = "list_mcp_resources"
	readResourceTool  = "read_mcp_resource"
)

// resourceTools are the tools that list and read the resources of the
// connected servers; they are registered while a server offers resources.
type resourceTools struct{ m *Manager }

func (r *resourceTools) tools() []tools.Tool {
	return []tools.Tool{&listResources{r.m}, &readResource{r.m}}
}

// readable reports whether read_mcp_resource is offered.
func (r *resourceTools) readable() bool {
	if r.m.opts.Tools == nil {
		return false
	}
	_, ok := r.m.opts.Tools.Get(readResourceTool)
	return ok
}

type listResources struct{ m *Manager }

func (*listResources) Name() string { return listResourcesTool }

func (*listResources) Description() string {
	return "List the resources (files, documents, data) that the connected MCP servers offer, as JSON. " +
		"With server, lists one page of that server's resources; cursor continues with the next page."
}

func (*listResources) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"server":{"type":"string","description":"MCP server name (default: every server)"},` +
		`"cursor":{"type":"string","description":"nextCursor of the previous page (with server)"}}}`)
}

type resourceEntry struct {
	Server      string `json:"server"`
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

func (t *listResources) Execute(ctx context.Context, call tools.Call) (llm.ToolResult, error) {
	name, _ := call.Args["server"].(string)
	cursor, _ := call.Args["cursor"].(string)
	t.m.WaitAll(ctx, DirectWait)
	out := struct {
		Server     string          `json:"server,omitempty"`
		Resources  []resourceEntry `json:"resources"`
		NextCursor string          `json:"nextCursor,omitempty"`
		Errors     []string        `json:"errors,omitempty"`
	}{Server: name, Resources: []resourceEntry{}}
	var servers []*server
	if name != "" {
		s := t.m.get(name)
		if s == nil {
			return llm.ToolResult{}, fmt.Errorf("unknown MCP server %q", name)
		}
		servers = []*server{s}
	} else {
		for _, s := range t.m.list() {
			if s.hasResources() {
				servers = append(servers, s)
			}
		}
	}
	for _, s := range servers {
		next := cursor
		for page := 1; ; page++ {
			var res *mcp.ListResourcesResult
			err := s.call(ctx, "resources/list", nil, func(ctx context.Context, sess *mcp.ClientSession, _ string) error {
				var err error
				res, err = sess.ListResources(ctx, &mcp.ListResourcesParams{Cursor: next})
				return err
			})
			if err != nil {
				if name != "" {
					return llm.ToolResult{}, err
				}
				out.Errors = append(out.Errors, err.Error())
				break
			}
			for _, r := range res.Resources {
				if strings.HasPrefix(r.URI, "ui://") {
					continue
				}
				out.Resources = append(out.Resources, resourceEntry{Server: s.def.Name, URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
			}
			if name != "" {
				out.NextCursor = res.NextCursor
				break
			}
			if res.NextCursor == "" || len(out.Resources) > 1000 {
				break
			}
			if page >= maxListPages {
				out.Errors = append(out.Errors, fmt.Sprintf("MCP server %q: resources/list still paging after %d pages; the rest is not listed", s.def.Name, maxListPages))
				break
			}
			next = res.NextCursor
		}
	}
	b, _ := json.Marshal(out)
	return t.m.limit(llm.TextResult(string(b))), nil
}

type readResource struct{ m *Manager }

func (*readResource) Name() string { return readResourceTool }

func (*readResource) Description() string {
	return "Read a resource of an MCP server by its URI (see list_mcp_resources). Text comes back as text, images as images."
}

func (*readResource) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"server":{"type":"string","description":"MCP server name"},` +
		`"uri":{"type":"string","description":"Resource URI"}},"required":["server","uri"]}`)
}

func (t *readResource) Execute(ctx context.Context, call tools.Call) (llm.ToolResult, error) {
	name, _ := call.Args["server"].(string)
	uri, _ := call.Args["uri"].(string)
	t.m.WaitAll(ctx, DirectWait)
	s := t.m.get(name)
	if s == nil {
		return llm.ToolResult{}, fmt.Errorf("unknown MCP server %q", name)
	}
	var res *mcp.ReadResourceResult
	err := s.call(ctx, "resources/read", nil, func(ctx context.Context, sess *mcp.ClientSession, _ string) error {
		var err error
		res, err = sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		return err
	})
	if err != nil {
		return llm.ToolResult{}, err
	}
	out := llm.ToolResult{Content: []llm.ContentBlock{}, Details: map[string]any{"server": name, "uri": uri}}
	for _, c := range res.Contents {
		out.Content = append(out.Content, resourceContent(c)...)
	}
	return t.m.limit(out), nil
}
