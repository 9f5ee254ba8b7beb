package rpc

import (
	"context"
	"encoding/json"

	"github.com/atomic-go/atomic/host/app"
)

func cancelledData(cancelled bool) map[string]any { return map[string]any{"cancelled": cancelled} }

func handleListSessions(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		Scope string `json:"scope"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	list, err := s.b.session.ListSessions(c.Scope)
	if err != nil {
		return nil, err
	}
	return map[string]any{"sessions": list}, nil
}

func handleNewSession(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		ParentSession string `json:"parentSession"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	cancelled, err := s.b.session.NewSession(c.ParentSession)
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
	cancelled, err := s.b.session.SwitchSession(*c.SessionPath)
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
	cancelled, err := s.b.session.ImportSession(*c.InputPath, c.CwdOverride)
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
	res, err := s.b.session.Fork(*c.EntryID)
	if err != nil {
		return nil, err
	}
	if res.Cancelled {
		return cancelledData(true), nil
	}
	return map[string]any{"text": res.Text, "cancelled": false}, nil
}

func handleClone(_ context.Context, s *Server, _ *Request) (any, error) {
	cancelled, err := s.b.session.Clone()
	if err != nil {
		return nil, err
	}
	return cancelledData(cancelled), nil
}

func handleGetForkMessages(_ context.Context, s *Server, _ *Request) (any, error) {
	msgs, err := s.b.session.ForkMessages()
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
	entries, leaf, err := s.b.session.Entries(since)
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
	tree, leaf, err := s.b.session.Tree()
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
	res, err := s.b.session.NavigateTree(*c.TargetID, app.NavigateOptions{
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
	return nil, s.b.session.SetLabel(*c.EntryID, c.Label)
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
	return nil, s.b.session.SetSessionName(*c.Name)
}

func handleGetSessionStats(_ context.Context, s *Server, _ *Request) (any, error) {
	return s.b.session.SessionStats(), nil
}

func handleExportHTML(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		OutputPath string `json:"outputPath"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	path, err := s.b.session.ExportHTML(c.OutputPath)
	if err != nil {
		return nil, err
	}
	return map[string]any{"path": path}, nil
}
