// Package session keeps a conversation as an append-only tree of entries
// (the version 3 JSONL session format shared with Atomic and pi): a header
// line, then one entry per line, each pointing at its parent. The leaf is
// the newest entry of the active branch; the branch from the root to the
// leaf becomes the model's context.
package session

import (
	"bytes"
	"encoding/json"

	"github.com/atomic-go/atomic/internal/jsonw"

	"github.com/atomic-go/atomic/host/llm"
)

// Version is the session file format version this package writes.
const Version = 3

// Entry types.
const (
	TypeMessage             = "message"
	TypeModelChange         = "model_change"
	TypeThinkingLevelChange = "thinking_level_change"
	TypeCompaction          = "compaction"
	TypeBranchSummary       = "branch_summary"
	TypeCustom              = "custom"
	TypeCustomMessage       = "custom_message"
	TypeLabel               = "label"
	TypeSessionInfo         = "session_info"
)

// Header is the first line of a session file. Unknown fields (Atomic's
// internal and workflow, for example) are kept in Extra.
type Header struct {
	Type          string
	Version       int
	ID            string
	Timestamp     string
	Cwd           string
	ParentSession string
	Extra         map[string]json.RawMessage
}

// MarshalJSON writes the header in the usual field order.
func (h Header) MarshalJSON() ([]byte, error) {
	w := jsonw.Object{}
	w.Str("type", h.Type)
	w.Val("version", h.Version)
	w.Str("id", h.ID)
	w.Str("timestamp", h.Timestamp)
	w.Str("cwd", h.Cwd)
	w.OptStr("parentSession", h.ParentSession)
	w.Extra(h.Extra)
	return w.Close()
}

var knownHeaderKeys = map[string]bool{
	"type": true, "version": true, "id": true, "timestamp": true, "cwd": true, "parentSession": true,
}

// UnmarshalJSON reads a header; a missing version means version 1.
func (h *Header) UnmarshalJSON(data []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	*h = Header{Version: 1}
	str := func(k string) string {
		var s string
		if raw, ok := all[k]; ok {
			_ = json.Unmarshal(raw, &s)
		}
		return s
	}
	h.Type, h.ID, h.Timestamp = str("type"), str("id"), str("timestamp")
	h.Cwd, h.ParentSession = str("cwd"), str("parentSession")
	if raw, ok := all["version"]; ok {
		var v float64
		if err := json.Unmarshal(raw, &v); err != nil || v != float64(int(v)) {
			h.Version = -1 // not a version number
		} else {
			h.Version = int(v)
		}
	}
	for k, v := range all {
		if !knownHeaderKeys[k] {
			if h.Extra == nil {
				h.Extra = map[string]json.RawMessage{}
			}
			h.Extra[k] = v
		}
	}
	return nil
}

// Entry is one line of the tree. Type selects which fields are meaningful;
// unknown fields are kept in Extra and written back unchanged.
type Entry struct {
	Type      string
	ID        string
	ParentID  *string
	Timestamp string

	Message *llm.Message // message

	ThinkingLevel string // thinking_level_change
	Provider      string // model_change
	ModelID       string // model_change

	Summary          string  // compaction, branch_summary
	FirstKeptEntryID *string // compaction
	TokensBefore     int     // compaction
	Details          any     // compaction, branch_summary, custom_message
	FromHook         bool    // compaction, branch_summary
	FromID           string  // branch_summary

	CustomType         string      // custom, custom_message
	Data               any         // custom
	Content            llm.Content // custom_message
	Display            bool        // custom_message
	ExcludeFromContext bool        // custom_message

	TargetID string  // label
	Label    *string // label (nil clears)

	Name *string // session_info

	Extra map[string]json.RawMessage

	// opaque holds the line of an entry whose fields do not have the types
	// this package expects; it is written back unchanged.
	opaque []byte
}

// Parent returns the parent id or "".
func (e *Entry) Parent() string {
	if e.ParentID == nil {
		return ""
	}
	return *e.ParentID
}

// MarshalJSON writes the entry's fields in a stable order.
func (e Entry) MarshalJSON() ([]byte, error) {
	if e.opaque != nil {
		return e.opaque, nil
	}
	w := jsonw.Object{}
	w.Str("type", e.Type)
	w.Str("id", e.ID)
	if e.ParentID == nil {
		w.Raw("parentId", []byte("null"))
	} else {
		w.Str("parentId", *e.ParentID)
	}
	w.Str("timestamp", e.Timestamp)
	switch e.Type {
	case TypeMessage:
		if e.Message != nil {
			w.Val("message", e.Message)
		}
	case TypeThinkingLevelChange:
		w.Str("thinkingLevel", e.ThinkingLevel)
	case TypeModelChange:
		w.Str("provider", e.Provider)
		w.Str("modelId", e.ModelID)
	case TypeCompaction:
		w.Str("summary", e.Summary)
		if e.FirstKeptEntryID == nil {
			w.Raw("firstKeptEntryId", []byte("null"))
		} else {
			w.Str("firstKeptEntryId", *e.FirstKeptEntryID)
		}
		w.Val("tokensBefore", e.TokensBefore)
		if e.Details != nil {
			w.Val("details", e.Details)
		}
		if e.FromHook {
			w.Val("fromHook", true)
		}
	case TypeBranchSummary:
		w.Str("fromId", e.FromID)
		w.Str("summary", e.Summary)
		if e.Details != nil {
			w.Val("details", e.Details)
		}
		if e.FromHook {
			w.Val("fromHook", true)
		}
	case TypeCustom:
		w.Str("customType", e.CustomType)
		if e.Data != nil {
			w.Val("data", e.Data)
		}
	case TypeCustomMessage:
		w.Str("customType", e.CustomType)
		w.Val("content", e.Content)
		if e.Details != nil {
			w.Val("details", e.Details)
		}
		w.Val("display", e.Display)
		if e.ExcludeFromContext {
			w.Val("excludeFromContext", true)
		}
	case TypeLabel:
		w.Str("targetId", e.TargetID)
		if e.Label != nil {
			w.Str("label", *e.Label)
		}
	case TypeSessionInfo:
		if e.Name != nil {
			w.Str("name", *e.Name)
		}
	}
	w.Extra(e.Extra)
	return w.Close()
}

var knownEntryKeys = map[string]bool{
	"type": true, "id": true, "parentId": true, "timestamp": true, "message": true,
	"thinkingLevel": true, "provider": true, "modelId": true, "summary": true,
	"firstKeptEntryId": true, "tokensBefore": true, "details": true, "fromHook": true,
	"fromId": true, "customType": true, "data": true, "content": true, "display": true,
	"excludeFromContext": true, "targetId": true, "label": true, "name": true,
}

// UnmarshalJSON reads an entry of any type.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var raw struct {
		Type               string       `json:"type"`
		ID                 string       `json:"id"`
		ParentID           *string      `json:"parentId"`
		Timestamp          any          `json:"timestamp"`
		Message            *llm.Message `json:"message"`
		ThinkingLevel      string       `json:"thinkingLevel"`
		Provider           string       `json:"provider"`
		ModelID            string       `json:"modelId"`
		Summary            string       `json:"summary"`
		FirstKeptEntryID   *string      `json:"firstKeptEntryId"`
		TokensBefore       int          `json:"tokensBefore"`
		Details            any          `json:"details"`
		FromHook           bool         `json:"fromHook"`
		FromID             string       `json:"fromId"`
		CustomType         string       `json:"customType"`
		Data               any          `json:"data"`
		Content            llm.Content  `json:"content"`
		Display            bool         `json:"display"`
		ExcludeFromContext bool         `json:"excludeFromContext"`
		TargetID           string       `json:"targetId"`
		Label              *string      `json:"label"`
		Name               *string      `json:"name"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	ts, _ := raw.Timestamp.(string)
	*e = Entry{
		Type: raw.Type, ID: raw.ID, ParentID: raw.ParentID, Timestamp: ts,
		Message: raw.Message, ThinkingLevel: raw.ThinkingLevel, Provider: raw.Provider,
		ModelID: raw.ModelID, Summary: raw.Summary, FirstKeptEntryID: raw.FirstKeptEntryID,
		TokensBefore: raw.TokensBefore, Details: raw.Details, FromHook: raw.FromHook,
		FromID: raw.FromID, CustomType: raw.CustomType, Data: raw.Data, Content: raw.Content,
		Display: raw.Display, ExcludeFromContext: raw.ExcludeFromContext,
		TargetID: raw.TargetID, Label: raw.Label, Name: raw.Name,
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err == nil {
		for k, v := range all {
			if !knownEntryKeys[k] {
				if e.Extra == nil {
					e.Extra = map[string]json.RawMessage{}
				}
				e.Extra[k] = v
			}
		}
	}
	return nil
}

// decodeEntry decodes an entry line that the scanner accepted. An entry
// whose fields have unexpected types is kept as an opaque entry: its line is
// returned unchanged by get_entries and it adds nothing to the context.
func decodeEntry(line []byte, m lineMeta) *Entry {
	e := &Entry{}
	if err := json.Unmarshal(line, e); err != nil {
		e = &Entry{Type: m.typ, ID: m.id, Timestamp: m.ts, opaque: append([]byte(nil), bytes.TrimSpace(line)...)}
	}
	// The scanner's reading of the structural fields is authoritative
	// (encoding/json matches keys case-insensitively; JSON.parse does not).
	e.Type, e.ID, e.Timestamp = m.typ, m.id, m.ts
	if m.parent == "" {
		e.ParentID = nil
	} else {
		p := m.parent
		e.ParentID = &p
	}
	return e
}
