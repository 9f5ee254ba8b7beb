package extensions

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/tools"
)

// Tool adapts an extension tool to the tool registry. A tool named like a
// built-in replaces it. Every call is bounded by tools.RunForeign: the
// deadline Timeout (0: none; the settings' timeouts.tool) and the caps on
// one result.
type Tool struct {
	Ref     ToolRef
	Timeout time.Duration
}

var (
	_ tools.Tool     = (*Tool)(nil)
	_ tools.Prompted = (*Tool)(nil)
	_ tools.Reached  = (*Tool)(nil)
)

// Name implements tools.Tool.
func (t *Tool) Name() string { return t.Ref.Spec.Name }

// Description implements tools.Tool.
func (t *Tool) Description() string { return t.Ref.Spec.Description }

// Parameters implements tools.Tool.
func (t *Tool) Parameters() json.RawMessage { return t.Ref.Spec.Parameters }

// PromptSnippet implements tools.Prompted.
func (t *Tool) PromptSnippet() string { return t.Ref.Spec.PromptSnippet }

// PromptGuidelines implements tools.Prompted.
func (t *Tool) PromptGuidelines() []string { return t.Ref.Spec.PromptGuidelines }

// Exposure implements tools.Reached.
func (t *Tool) Exposure() string { return t.Ref.Spec.Exposure }

// Sequential implements tools.Reached.
func (t *Tool) Sequential() bool { return t.Ref.Spec.ExecutionMode == "sequential" }

// Execute implements tools.Tool by calling the extension.
func (t *Tool) Execute(ctx context.Context, call tools.Call) (llm.ToolResult, error) {
	name := t.Ref.Spec.Name
	source := fmt.Sprintf("extension %q", t.Ref.Ext.Name())
	return tools.RunForeign(ctx, call, name, source, t.Timeout, func(ctx context.Context, update func(llm.ToolResult)) (llm.ToolResult, error) {
		return t.Ref.Ext.ExecuteTool(ctx, name, call.ID, call.Args, update)
	})
}
