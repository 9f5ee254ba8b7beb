package acp_test

import (
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-go/atomic/internal/e2e"
)

// initialize names the agent with its version (issue 28, item 20: it was
// empty), the same version --version prints.
func TestACPAgentInfoHasTheVersion(t *testing.T) {
	s := start(t, e2e.Options{})
	res, err := s.conn.Initialize(e2e.Ctx(t, 20*time.Second), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	if res.AgentInfo == nil || res.AgentInfo.Name != "atomic" || res.AgentInfo.Version == "" {
		t.Fatalf("agentInfo %+v", res.AgentInfo)
	}
}
