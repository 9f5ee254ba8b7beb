package session

import (
	"encoding/json"
	"strings"
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

// ContextEntries lists the entries that make the context with their
// messages, as pi 1.6's projection: from the latest boundary compaction
// (its own messages, then the kept entries), edits applied, entries that
// give no message listed with none.
func TestContextEntries(t *testing.T) {
	s := NewInMemory("/p")
	s.AppendMessage(llm.UserText("old"))
	kept := s.AppendMessage(llm.UserText("kept"))
	s.Append(Entry{Type: TypeModelChange, Provider: "p", ModelID: "m"})
	keptID := kept.ID
	c := s.Append(Entry{Type: TypeCompaction, Summary: "what happened", FirstKeptEntryID: &keptID})
	edited := s.AppendMessage(llm.UserText("to edit"))
	dropped := s.AppendMessage(llm.UserText("to drop"))
	s.Append(Entry{Type: TypeContextEdit, TargetID: edited.ID, Extra: map[string]json.RawMessage{"replacement": json.RawMessage(`{"content":"edited"}`)}})
	s.Append(Entry{Type: TypeContextEdit, TargetID: dropped.ID, Extra: map[string]json.RawMessage{"replacement": json.RawMessage(`null`)}})
	s.Append(Entry{Type: TypeCustom, CustomType: "note"})
	var got []string
	for _, pe := range s.ContextEntries(DefaultRules) {
		var texts []string
		for _, m := range pe.Messages {
			texts = append(texts, m.Role+":"+m.Content.JoinText("")+m.Summary)
		}
		got = append(got, pe.SourceEntry.Type+"["+strings.Join(texts, ",")+"]")
	}
	want := "compaction[compactionSummary:what happened] message[user:kept] model_change[] message[user:edited] message[] context_edit[] context_edit[] custom[]"
	if strings.Join(got, " ") != want {
		t.Errorf("context entries\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if s.ContextEntries(DefaultRules)[0].SourceEntry.ID != c.ID {
		t.Error("the compaction does not come first")
	}
	if b, err := json.Marshal(s.ContextEntries(DefaultRules)[2]); err != nil || !strings.Contains(string(b), `"messages":[]`) {
		t.Errorf("an entry without messages: %s %v", b, err)
	}
}
