package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

// single handles events one at a time; its Handle fails for "bad".
type single struct{ handled []string }

func (s *single) Path() string     { return "single" }
func (s *single) Events() []string { return nil }
func (s *single) Handle(_ context.Context, ev *Event) (json.RawMessage, error) {
	s.handled = append(s.handled, ev.Name)
	if ev.Name == "bad" {
		return nil, errors.New("bad event")
	}
	return nil, nil
}

// batching takes batches; its Handle must not be called for one.
type batching struct {
	single
	batches [][]string
}

func (b *batching) HandleBatch(_ context.Context, evs []*Event) []error {
	var names []string
	for _, ev := range evs {
		names = append(names, ev.Name)
	}
	b.batches = append(b.batches, names)
	return []error{errors.New("whole batch")}
}

func TestHandleBatchFallsBackToHandle(t *testing.T) {
	s := &single{}
	errs := HandleBatch(context.Background(), s, []*Event{{Name: "a"}, {Name: "bad"}, {Name: "c"}})
	if !slices.Equal(s.handled, []string{"a", "bad", "c"}) {
		t.Fatalf("handled %v, want each event in order", s.handled)
	}
	if len(errs) != 3 || errs[0] != nil || errs[1] == nil || errs[2] != nil {
		t.Fatalf("errors %v, want one per event with the second failing", errs)
	}
}

func TestHandleBatchPassesTheBatch(t *testing.T) {
	b := &batching{}
	errs := HandleBatch(context.Background(), b, []*Event{{Name: "a"}, {Name: "b"}})
	if len(b.handled) != 0 {
		t.Fatalf("Handle called for %v: the batch should go in one call", b.handled)
	}
	if len(b.batches) != 1 || !slices.Equal(b.batches[0], []string{"a", "b"}) {
		t.Fatalf("batches %v, want one [a b]", b.batches)
	}
	if len(errs) != 1 || errs[0] == nil || errs[0].Error() != "whole batch" {
		t.Fatalf("errors %v, want the batch's own", errs)
	}
}
