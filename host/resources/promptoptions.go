package resources

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/atomic-go/atomic/internal/jsonorder"
)

// PromptOptions is pi 1.6's BuildSystemPromptOptions: the structured
// inputs of the system prompt, in pi's JSON shape.
type PromptOptions struct {
	CustomPrompt       string              `json:"customPrompt,omitempty"`
	SelectedTools      []string            `json:"selectedTools"`
	ToolSnippets       map[string]string   `json:"toolSnippets"`
	ToolGuidelines     map[string][]string `json:"toolGuidelines"`
	PromptGuidelines   []string            `json:"promptGuidelines"`
	AppendSystemPrompt string              `json:"appendSystemPrompt"`
	// Sections are extra prompt sections, each rendered in a tag of its
	// name, in the order written.
	Sections     *OrderedStrings     `json:"sections"`
	Cwd          string              `json:"cwd"`
	ContextFiles []PromptContextFile `json:"contextFiles"`
	Skills       []PromptSkill       `json:"skills"`
}

// PromptContextFile is a loaded context file (AGENTS.md and the like).
type PromptContextFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// PromptSkill is a skill as the prompt lists it (pi's Skill fields).
type PromptSkill struct {
	Name                   string `json:"name"`
	Description            string `json:"description"`
	FilePath               string `json:"filePath"`
	BaseDir                string `json:"baseDir"`
	DisableModelInvocation bool   `json:"disableModelInvocation"`
}

// OrderedStrings is a JSON object of strings that keeps its order.
type OrderedStrings struct {
	List []KeyValue
}

// KeyValue is one member of an OrderedStrings.
type KeyValue struct {
	Key, Value string
}

// MarshalJSON implements json.Marshaler.
func (o *OrderedStrings) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o.List {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.Key)
		v, _ := json.Marshal(kv.Value)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON implements json.Unmarshaler; null and non-string values
// are left out.
func (o *OrderedStrings) UnmarshalJSON(data []byte) error {
	o.List = nil
	if string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	members, err := jsonorder.Members(data)
	if errors.Is(err, jsonorder.ErrNotObject) {
		return errors.New("sections must be an object of strings")
	}
	if err != nil {
		return err
	}
	for _, kv := range members {
		var v *string
		if json.Unmarshal(kv.Value, &v) == nil && v != nil {
			o.List = append(o.List, KeyValue{kv.Key, *v})
		}
	}
	return nil
}
