package session

import (
	"testing"

	"github.com/atomic-go/atomic/host/llm"
)

// FindBack finds the newest matching entry of a type on the active
// branch, looks only at entries of that type, and stops before the entry
// it is told to.
func TestFindBack(t *testing.T) {
	s := NewInMemory("/p")
	s.AppendMessage(llm.UserText("a"))
	old := s.Append(Entry{Type: TypeCustom, CustomType: "k", Data: 1})
	s.Append(Entry{Type: TypeCustom, CustomType: "other", Data: 2})
	mid := s.AppendMessage(llm.UserText("b"))
	looked := 0
	isK := func(e *Entry) bool {
		looked++
		if e.Type != TypeCustom {
			t.Errorf("match called for a %s entry", e.Type)
		}
		return e.CustomType == "k"
	}
	found, atStop, leaf := s.FindBack(TypeCustom, "", isK)
	if found == nil || found.ID != old.ID || atStop || leaf != mid.ID || looked != 2 {
		t.Fatalf("found %v, atStop %v, leaf %v, looked %d", found, atStop, leaf, looked)
	}
	// Nothing new since mid: the walk stops at once.
	looked = 0
	if found, atStop, _ = s.FindBack(TypeCustom, mid.ID, isK); found != nil || !atStop || looked != 0 {
		t.Fatalf("from mid: %v %v %d", found, atStop, looked)
	}
	newer := s.Append(Entry{Type: TypeCustom, CustomType: "k", Data: 3})
	s.AppendMessage(llm.UserText("c"))
	if found, atStop, _ = s.FindBack(TypeCustom, mid.ID, isK); found == nil || found.ID != newer.ID || atStop {
		t.Fatalf("after mid: %v %v", found, atStop)
	}
	// Off the remembered branch: the stop is never met, the whole branch
	// is looked at.
	if err := s.SetLeaf(old.ID); err != nil {
		t.Fatal(err)
	}
	s.AppendMessage(llm.UserText("d"))
	if found, atStop, _ = s.FindBack(TypeCustom, newer.ID, isK); found == nil || found.ID != old.ID || atStop {
		t.Fatalf("on another branch: %v %v", found, atStop)
	}
}
