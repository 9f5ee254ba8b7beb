package acp_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-go/atomic/internal/e2e"
)

// Special files named *.jsonl in the session directory (a FIFO, a socket,
// a symlink to /dev/zero, a directory) are left out of session/list, and
// session/load of one of them answers with an error instead of hanging.
func TestACPSessionListSkipsSpecialFiles(t *testing.T) {
	s := start(t, e2e.Options{})
	s.init(t)
	if r := s.prompt(t, "hi"); r != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	files, _ := filepath.Glob(filepath.Join(s.env.AgentDir, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	e2e.SpecialFiles(t, filepath.Dir(files[0]), ".jsonl")
	ctx := e2e.Ctx(t, 10*time.Second)
	list, err := s.conn.ListSessions(ctx, sdk.ListSessionsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != s.id {
		t.Fatalf("list: %+v", list.Sessions)
	}
	for _, id := range []string{"fifo", "sock", "zero", "dir"} {
		_, err := s.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: sdk.SessionId(id), Cwd: s.env.Dir, McpServers: []sdk.McpServer{}})
		if err == nil || !strings.Contains(err.Error(), "unknown session") {
			t.Fatalf("load %s: %v", id, err)
		}
	}
	// The agent still answers.
	if _, err := s.conn.ListSessions(ctx, sdk.ListSessionsRequest{}); err != nil {
		t.Fatal(err)
	}
}
