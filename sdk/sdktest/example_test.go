package sdktest_test

import (
	"fmt"

	"github.com/atomic-go/atomic/sdk"
	"github.com/atomic-go/atomic/sdk/sdktest"
)

// Testing an extension without an agent: the harness calls its handlers
// the way the agent does, and the fake host records what the extension
// asked of the agent. In a _test.go file the checks would be t.Errorf.
func ExampleNew() {
	ext := sdk.New("namer", "1.0.0")
	ext.OnSessionStart(func(c *sdk.Context, ev *sdk.SessionStartEvent) error {
		return c.Host.SetSessionName(c, "named by "+ev.Reason)
	})

	h := sdktest.New(ext)
	if _, err := h.Event(sdk.EventSessionStart, sdk.SessionStartEvent{Reason: "startup"}); err != nil {
		fmt.Println("error:", err)
	}
	h.Host.Locked(func() { fmt.Println(h.Host.Name) })
	// Output: named by startup
}
