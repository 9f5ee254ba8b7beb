package llm

import "github.com/atomic-go/atomic/internal/jsonw"

// ToolResult is what a tool returns: content for the model and optional
// details for clients.
type ToolResult struct {
	Content []ContentBlock `json:"content"`
	Details any            `json:"details,omitempty"`
}

// TextResult returns a result with one text block.
func TextResult(text string) ToolResult {
	return ToolResult{Content: []ContentBlock{Text(text)}}
}

// ResultText joins the text blocks of a result.
func (r ToolResult) ResultText() string {
	return Content{Blocks: r.Content}.JoinText("\n")
}

// MarshalJSON writes content as an array even when empty.
func (r ToolResult) MarshalJSON() ([]byte, error) {
	w := jsonw.Object{}
	content := r.Content
	if content == nil {
		content = []ContentBlock{}
	}
	w.Val("content", content)
	if r.Details != nil {
		w.Val("details", r.Details)
	}
	return w.Close()
}
