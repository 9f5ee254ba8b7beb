package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-go/atomic/internal/e2e"
)

// askExtension registers a tool that asks for text with the input and
// editor dialogs and returns what it got (or the error).
const askExtension = `export default function (pi: any) {
  pi.registerTool({
    name: "ask", label: "Ask", description: "Ask the user",
    parameters: { type: "object", properties: {} },
    async execute(id: string, params: any, signal: any, onUpdate: any, ctx: any) {
      const out: string[] = [];
      for (const [kind, f] of [["input", () => ctx.ui.input("Your name?", "a name")], ["editor", () => ctx.ui.editor("Notes", "draft")]] as any) {
        try { out.push(kind + "=" + JSON.stringify(await f())); } catch (e: any) { out.push(kind + " error: " + e.message); }
      }
      return { content: [{ type: "text", text: out.join("\n") }] };
    },
  });
}
`

// askResult runs the ask tool over ACP and returns its result text.
func askResult(t *testing.T, caps sdk.ClientCapabilities, setup func(*session)) (string, *session) {
	t.Helper()
	ext := filepath.Join(t.TempDir(), "ask.ts")
	if err := os.WriteFile(ext, []byte(askExtension), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, e2e.Options{Args: []string{"-e", ext}, Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "ask", "id": "ask-1", "arguments": map[string]any{}}}},
		{"text": "asked"},
	}})
	if setup != nil {
		setup(s)
	}
	s.initWith(t, caps)
	if r := s.prompt(t, "ask"); r != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	for _, n := range s.ed.snapshot() {
		if tu := n.Update.ToolCallUpdate; tu != nil && tu.ToolCallId == "ask-1" && tu.Status != nil && *tu.Status == sdk.ToolCallStatusCompleted {
			for _, c := range tu.Content {
				if c.Content != nil && c.Content.Content.Text != nil {
					return c.Content.Content.Text.Text, s
				}
			}
		}
	}
	t.Fatal("no result of the ask tool")
	return "", nil
}

// TestACPElicitation: with form elicitation advertised, the input and
// editor dialogs become elicitation/create forms (scoped to the session
// and the tool call); accept gives the value, decline cancels.
func TestACPElicitation(t *testing.T) {
	caps := sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.ElicitationFormCapabilities{}}}
	text, s := askResult(t, caps, func(s *session) {
		s.ed.elicit = func(p sdk.UnstableCreateElicitationRequest) sdk.UnstableCreateElicitationResponse {
			if p.Form == nil || p.Form.Message != "Your name?" {
				return sdk.NewUnstableCreateElicitationResponseDecline()
			}
			r := sdk.NewUnstableCreateElicitationResponseAccept()
			r.Accept.Content = map[string]any{"value": "Ada"}
			return r
		}
	})
	if text != "input=\"Ada\"\neditor=undefined" {
		t.Fatalf("the tool got %q", text)
	}
	if len(s.ed.elicited) != 2 {
		t.Fatalf("%d elicitations", len(s.ed.elicited))
	}
	f := s.ed.elicited[1].Form
	field, _ := f.RequestedSchema.Properties["value"].(map[string]any)
	if f.Message != "Notes" || field["default"] != "draft" || field["type"] != "string" || len(f.RequestedSchema.Required) != 1 {
		t.Fatalf("editor form %+v", f)
	}
}

// TestACPElicitationRefused: without the capability the extension gets an
// error that says why.
func TestACPElicitationRefused(t *testing.T) {
	text, s := askResult(t, sdk.ClientCapabilities{}, nil)
	if !strings.Contains(text, "input error: ") || !strings.Contains(text, "does not offer form elicitation") ||
		!strings.Contains(text, "editor error: ") {
		t.Fatalf("the tool got %q", text)
	}
	if len(s.ed.elicited) != 0 {
		t.Fatal("an elicitation was sent to a client without the capability")
	}
}
