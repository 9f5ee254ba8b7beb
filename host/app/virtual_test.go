package app

import (
	"testing"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// The router state a virtual model gets is the latest its branch keeps,
// remembered between requests and found again after the leaf moves.
func TestVirtualStates(t *testing.T) {
	vm := llm.Model{Provider: "router", ID: "auto"}
	s := session.NewInMemory("/p")
	put := func(n int) *session.Entry {
		return s.Append(session.Entry{Type: session.TypeCustom, CustomType: virtualStateEntry,
			Data: map[string]any{"provider": "router", "modelId": "auto", "state": map[string]any{"n": n}}})
	}
	var v virtualStates
	if st := v.state(s, vm); st != nil {
		t.Fatalf("an empty session's state %s", st)
	}
	s.AppendMessage(llm.UserText("a"))
	first := put(1)
	s.Append(session.Entry{Type: session.TypeCustom, CustomType: virtualStateEntry,
		Data: map[string]any{"provider": "router", "modelId": "other", "state": 9}})
	if st := string(v.state(s, vm)); st != `{"n":1}` {
		t.Fatalf("state %s", st)
	}
	s.AppendMessage(llm.UserText("b"))
	if st := string(v.state(s, vm)); st != `{"n":1}` {
		t.Fatalf("state after a message %s", st)
	}
	put(2)
	if st := string(v.state(s, vm)); st != `{"n":2}` {
		t.Fatalf("new state %s", st)
	}
	if err := s.SetLeaf(first.ID); err != nil {
		t.Fatal(err)
	}
	s.AppendMessage(llm.UserText("c"))
	if st := string(v.state(s, vm)); st != `{"n":1}` {
		t.Fatalf("state on the earlier branch %s", st)
	}
	if st := v.state(session.NewInMemory("/q"), vm); st != nil {
		t.Fatalf("another session's state %s", st)
	}
}
