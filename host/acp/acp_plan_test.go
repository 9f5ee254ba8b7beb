package acp_test

import (
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-go/atomic/internal/e2e"
)

// TestACPPlan: a tool whose result details hold a plan (here an
// extension's todo tool) gives the client a plan update, and loading the
// session replays the last plan.
func TestACPPlan(t *testing.T) {
	ext := filepath.Join(t.TempDir(), "todo.ts")
	if err := os.WriteFile(ext, []byte(`import { Type } from "@sinclair/typebox";
export default function (pi: any) {
  pi.registerTool({
    name: "todo_write", label: "Todos", description: "Write the todo list",
    parameters: Type.Object({ todos: Type.Array(Type.Any()) }),
    async execute(id: string, params: any) {
      return { content: [{ type: "text", text: "saved" }], details: { todos: params.todos } };
    },
  });
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	todos := []map[string]any{
		{"content": "read the code", "status": "completed"},
		{"content": "write the fix", "status": "in_progress", "priority": "high"},
		{"content": "run the tests", "status": "pending"},
	}
	s := start(t, e2e.Options{Args: []string{"-e", ext}, Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "todo_write", "id": "t1", "arguments": map[string]any{"todos": todos}}}},
		{"text": "planned"},
	}})
	s.init(t)
	if r := s.prompt(t, "plan"); r != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	check := func(ns []sdk.SessionNotification) {
		t.Helper()
		var plan *sdk.SessionUpdatePlan
		for _, n := range ns {
			if n.Update.Plan != nil {
				plan = n.Update.Plan
			}
		}
		if plan == nil || len(plan.Entries) != 3 {
			t.Fatalf("plan %+v", plan)
		}
		e := plan.Entries
		if e[0].Content != "read the code" || e[0].Status != sdk.PlanEntryStatusCompleted ||
			e[1].Status != sdk.PlanEntryStatusInProgress || e[1].Priority != sdk.PlanEntryPriorityHigh ||
			e[2].Status != sdk.PlanEntryStatusPending || e[2].Priority != sdk.PlanEntryPriorityMedium {
			t.Fatalf("entries %+v", e)
		}
	}
	check(s.ed.snapshot())

	s2 := start(t, e2e.Options{Args: []string{"-e", ext}, Dir: s.env.Dir, Env: map[string]string{"HOME": s.env.Home, "ATOMIC_CODING_AGENT_DIR": s.env.AgentDir}})
	ctx := e2e.Ctx(t, 20e9)
	if _, err := s2.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: s.id, Cwd: s.env.Dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	check(s2.ed.snapshot())
}
