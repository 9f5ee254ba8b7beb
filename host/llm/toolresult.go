package llm

import "github.com/atomic-go/atomic/internal/jsonw"

// ToolResult is what a tool returns: content for the model and optional
// details for clients.
type ToolResult struct {
	Content []ContentBlock `json:"content"`
	Details any            `json:"details,omitempty"`
	// Terminate asks the agent not to call the model again after this
	// tool batch (it stops only when every result of the batch asks so).
	Terminate bool `json:"-"`
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
func (r ToolResult) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }

// AppendJSON appends the result's JSON to dst.
func (r ToolResult) AppendJSON(dst []byte) []byte {
	w := jsonw.Append(dst)
	w.Field("content", func(b []byte) []byte { return appendBlocks(b, r.Content) })
	if r.Details != nil {
		w.Val("details", r.Details)
	}
	return w.Close()
}
