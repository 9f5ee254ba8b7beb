package hostsvc

import (
	"encoding/json"

	"github.com/atomic-go/atomic/host/extensions"
	pb "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
)

// What a description (Describe, UpdateRegistrations) registers, as the
// host's types: one conversion for every runtime.

// ToolSpecs are the description's tools (a tool without parameters takes
// an empty object).
func ToolSpecs(d *pb.DescribeResponse) []extensions.ToolSpec {
	var out []extensions.ToolSpec
	for _, t := range d.GetTools() {
		params := json.RawMessage(t.ParametersJson)
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out = append(out, extensions.ToolSpec{Name: t.Name, Label: t.Label, Description: t.Description,
			Parameters: params, PromptSnippet: t.PromptSnippet, PromptGuidelines: t.PromptGuidelines,
			Exposure: t.Exposure, Inactive: t.Inactive, ExecutionMode: t.ExecutionMode,
			Namespace: rawOrNil(t.NamespaceJson), Annotations: rawOrNil(t.AnnotationsJson)})
	}
	return out
}

// ProviderSpecs are the description's model providers.
func ProviderSpecs(d *pb.DescribeResponse) []extensions.ProviderSpec {
	var out []extensions.ProviderSpec
	for _, p := range d.GetProviders() {
		out = append(out, extensions.ProviderSpec{Name: p.Name, Config: rawOrNil(p.ConfigJson), VirtualModels: rawOrNil(p.VirtualModelsJson), Streams: p.Streams})
	}
	return out
}

// ShortcutSpecs are the description's keyboard shortcuts.
func ShortcutSpecs(d *pb.DescribeResponse) []extensions.ShortcutSpec {
	var out []extensions.ShortcutSpec
	for _, s := range d.GetShortcuts() {
		out = append(out, extensions.ShortcutSpec{Key: s.Key, Description: s.Description})
	}
	return out
}

func rawOrNil(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return json.RawMessage(b)
}
