// Package session keeps a conversation as an append-only tree of entries
// (the version 3 JSONL session format shared with Atomic and pi): a header
// line, then one entry per line, each pointing at its parent. The leaf is
// the newest entry of the active branch; the branch from the root to the
// leaf becomes the model's context.
package session

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/atomic-go/atomic/internal/jsonscan"
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
	// TypeContextEdit is pi 1.x's append-only edit of an earlier entry's
	// context contribution (targetId, replacement: null drops it).
	TypeContextEdit = "context_edit"
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
	b := w.Close()
	return b, w.Err()
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

	TargetID string  // label, context_edit (its replacement stays in Extra)
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
	case TypeContextEdit:
		w.Str("targetId", e.TargetID)
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
	b := w.Close()
	return b, w.Err()
}

// UnmarshalJSON reads an entry of any type in one walk over the object;
// unknown keys are kept in Extra.
func (e *Entry) UnmarshalJSON(data []byte) error {
	*e = Entry{}
	var err error
	str := func(v []byte, k string, dst *string) { *dst, err = jsonscan.String(v, k) }
	strPtr := func(v []byte, k string, dst **string) { *dst, err = jsonscan.StringPtr(v, k) }
	boolean := func(v []byte, k string, dst *bool) { *dst, err = jsonscan.Bool(v, k) }
	anyVal := func(v []byte, dst *any) {
		*dst = nil
		err = jsonscan.Any(v, dst)
	}
	ok := jsonscan.Fields(data, func(key, v []byte) bool {
		switch k := string(key); k {
		case "type":
			str(v, k, &e.Type)
		case "id":
			str(v, k, &e.ID)
		case "parentId":
			strPtr(v, k, &e.ParentID)
		case "timestamp":
			e.Timestamp, _ = jsonscan.String(v, k) // not a string: ""
		case "message":
			e.Message = nil
			if !jsonscan.IsNull(v) {
				e.Message = &llm.Message{}
				err = e.Message.UnmarshalJSON(v)
			}
		case "thinkingLevel":
			str(v, k, &e.ThinkingLevel)
		case "provider":
			str(v, k, &e.Provider)
		case "modelId":
			str(v, k, &e.ModelID)
		case "summary":
			str(v, k, &e.Summary)
		case "firstKeptEntryId":
			strPtr(v, k, &e.FirstKeptEntryID)
		case "tokensBefore":
			e.TokensBefore = 0
			err = jsonscan.Any(v, &e.TokensBefore)
		case "details":
			anyVal(v, &e.Details)
		case "fromHook":
			boolean(v, k, &e.FromHook)
		case "fromId":
			str(v, k, &e.FromID)
		case "customType":
			str(v, k, &e.CustomType)
		case "data":
			anyVal(v, &e.Data)
		case "content":
			err = e.Content.UnmarshalJSON(v)
		case "display":
			boolean(v, k, &e.Display)
		case "excludeFromContext":
			boolean(v, k, &e.ExcludeFromContext)
		case "targetId":
			str(v, k, &e.TargetID)
		case "label":
			strPtr(v, k, &e.Label)
		case "name":
			strPtr(v, k, &e.Name)
		default:
			if e.Extra == nil {
				e.Extra = map[string]json.RawMessage{}
			}
			e.Extra[k] = append(json.RawMessage(nil), v...)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("json: an entry must be a JSON object")
	}
	return nil
}

// decodeEntry decodes an entry line that the scanner accepted. An entry
// whose fields have unexpected types is kept as an opaque entry: its line is
// returned unchanged by get_entries and it adds nothing to the context.
func decodeEntry(line []byte, m lineMeta) *Entry {
	e := &Entry{}
	if err := e.UnmarshalJSON(line); err != nil {
		e = &Entry{Type: m.typ, ID: m.id, Timestamp: m.ts, opaque: append([]byte(nil), bytes.TrimSpace(line)...)}
	}
	// The index's reading of the structural fields wins (an empty parent
	// id is a root, as null is).
	e.Type, e.ID, e.Timestamp = m.typ, m.id, m.ts
	if m.parent == "" {
		e.ParentID = nil
	} else {
		p := m.parent
		e.ParentID = &p
	}
	return e
}
