package extensions

import (
	"context"
	"encoding/json"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/tools"
)

// Tool adapts an extension tool to the tool registry. A tool named like a
// built-in replaces it.
type Tool struct {
	Ref ToolRef
}

var (
	_ tools.Tool     = (*Tool)(nil)
	_ tools.Prompted = (*Tool)(nil)
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

// Execute implements tools.Tool by calling the extension.
func (t *Tool) Execute(ctx context.Context, call tools.Call) (llm.ToolResult, error) {
	return t.Ref.Ext.ExecuteTool(ctx, t.Ref.Spec.Name, call.ID, call.Args, call.Update)
}
