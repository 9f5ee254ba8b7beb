package llm

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
func (r ToolResult) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }

// AppendJSON appends the result's JSON to dst.
func (r ToolResult) AppendJSON(dst []byte) []byte {
	w := objWriter{buf: dst}
	w.key("content")
	w.buf = appendBlocks(w.buf, r.Content)
	if r.Details != nil {
		w.value("details", r.Details)
	}
	return w.close()
}
