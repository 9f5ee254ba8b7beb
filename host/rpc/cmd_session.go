package rpc

import (
	"context"
	"encoding/json"

	"github.com/atomic-go/atomic/host/app"
)

func init() {
	Register("new_session", Ordinary, handleNewSession)
	Register("switch_session", Ordinary, handleSwitchSession)
	Register("import_session", Ordinary, handleImportSession)
	Register("fork", Ordinary, handleFork)
	Register("clone", Ordinary, handleClone)
	Register("get_fork_messages", Ordinary, handleGetForkMessages)
	Register("get_entries", Ordinary, handleGetEntries)
	Register("get_tree", Ordinary, handleGetTree)
	Register("navigate_tree", Ordinary, handleNavigateTree)
	Register("set_label", Ordinary, handleSetLabel)
	Register("set_session_name", Ordinary, handleSetSessionName)
	Register("get_session_stats", Ordinary, handleGetSessionStats)
	Register("export_html", Ordinary, handleExportHTML)
}

func cancelledData(cancelled bool) map[string]any { return map[string]any{"cancelled": cancelled} }

func handleNewSession(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		ParentSession string `json:"parentSession"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	cancelled, err := s.rt.NewSession(c.ParentSession)
	if err != nil {
		return nil, err
	}
	return cancelledData(cancelled), nil
}

func handleSwitchSession(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		SessionPath *string `json:"sessionPath"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	if c.SessionPath == nil {
		return nil, MissingField("sessionPath")
	}
	cancelled, err := s.rt.SwitchSession(*c.SessionPath)
	if err != nil {
		return nil, err
	}
	return cancelledData(cancelled), nil
}

func handleImportSession(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		InputPath   *string `json:"inputPath"`
		CwdOverride string  `json:"cwdOverride"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	if c.InputPath == nil {
		return nil, MissingField("inputPath")
	}
	cancelled, err := s.rt.ImportSession(*c.InputPath, c.CwdOverride)
	if err != nil {
		return nil, err
	}
	return cancelledData(cancelled), nil
}

func handleFork(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		EntryID *string `json:"entryId"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	if c.EntryID == nil {
		return nil, MissingField("entryId")
	}
	res, err := s.rt.Fork(*c.EntryID)
	if err != nil {
		return nil, err
	}
	if res.Cancelled {
		return cancelledData(true), nil
	}
	return map[string]any{"text": res.Text, "cancelled": false}, nil
}

func handleClone(_ context.Context, s *Server, _ *Request) (any, error) {
	cancelled, err := s.rt.Clone()
	if err != nil {
		return nil, err
	}
	return cancelledData(cancelled), nil
}

func handleGetForkMessages(_ context.Context, s *Server, _ *Request) (any, error) {
	msgs, err := s.rt.ForkMessages()
	if err != nil {
		return nil, err
	}
	return map[string]any{"messages": msgs}, nil
}

func handleGetEntries(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		Since *string `json:"since"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	since := ""
	if c.Since != nil {
		since = *c.Since
	}
	entries, leaf, err := s.rt.Entries(since)
	if err != nil {
		return nil, err
	}
	// The entries are the file's lines (validated when the file was
	// loaded): they are copied into the response as they are.
	size := 64
	for _, e := range entries {
		size += len(e) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, `{"entries":[`...)
	for i, e := range entries {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	out = append(out, `],"leafId":`...)
	out = appendLeaf(out, leaf)
	return RawJSON(append(out, '}')), nil
}

func handleGetTree(_ context.Context, s *Server, _ *Request) (any, error) {
	tree, leaf, err := s.rt.Tree()
	if err != nil {
		return nil, err
	}
	// A long conversation is a deep tree: encode it without encoding/json,
	// which refuses nesting deeper than 10000.
	out := tree.AppendJSON([]byte(`{"tree":`))
	out = append(out, `,"leafId":`...)
	out = appendLeaf(out, leaf)
	return RawJSON(append(out, '}')), nil
}

func appendLeaf(dst []byte, leaf string) []byte {
	if leaf == "" {
		return append(dst, "null"...)
	}
	b, _ := json.Marshal(leaf)
	return append(dst, b...)
}

func handleNavigateTree(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		TargetID *string `json:"targetId"`
		Options  struct {
			Summarize           bool   `json:"summarize"`
			CustomInstructions  string `json:"customInstructions"`
			ReplaceInstructions bool   `json:"replaceInstructions"`
			Label               string `json:"label"`
		} `json:"options"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	if c.TargetID == nil {
		return nil, MissingField("targetId")
	}
	res, err := s.rt.NavigateTree(*c.TargetID, app.NavigateOptions{
		Summarize: c.Options.Summarize, CustomInstructions: c.Options.CustomInstructions,
		ReplaceInstructions: c.Options.ReplaceInstructions, Label: c.Options.Label,
	})
	if err != nil {
		return nil, err
	}
	out := map[string]any{"cancelled": res.Cancelled}
	if res.EditorText != nil {
		out["editorText"] = *res.EditorText
	}
	return out, nil
}

func handleSetLabel(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		EntryID *string `json:"entryId"`
		Label   *string `json:"label"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	if c.EntryID == nil {
		return nil, MissingField("entryId")
	}
	return nil, s.rt.SetLabel(*c.EntryID, c.Label)
}

func handleSetSessionName(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		Name *string `json:"name"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	if c.Name == nil {
		return nil, MissingField("name")
	}
	return nil, s.rt.SetSessionName(*c.Name)
}

func handleGetSessionStats(_ context.Context, s *Server, _ *Request) (any, error) {
	return s.rt.SessionStats(), nil
}

func handleExportHTML(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		OutputPath string `json:"outputPath"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	path, err := s.rt.ExportHTML(c.OutputPath)
	if err != nil {
		return nil, err
	}
	return map[string]any{"path": path}, nil
}
