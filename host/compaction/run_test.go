package compaction

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
)

func TestNextOffsetLadder(t *testing.T) {
	var got []int
	off := 0
	for {
		next, ok := NextOffset(100, off)
		if !ok {
			break
		}
		got = append(got, next)
		off = next
	}
	if want := []int{50, 75, 87, 93, 96, 98, 99}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ladder %v, want %v", got, want)
	}
	if _, ok := NextOffset(1, 0); ok {
		t.Fatal("a single line cannot be trimmed")
	}
	if next, ok := NextOffset(2, 0); !ok || next != 1 {
		t.Fatal("two lines trim to one")
	}
}

// script returns a planner answering each call with the next function.
func script(t *testing.T, steps ...func(req *PlanRequest) Reply) (Planner, *[]*PlanRequest) {
	var seen []*PlanRequest
	return PlannerFunc(func(ctx context.Context, req *PlanRequest) Reply {
		seen = append(seen, req)
		if len(seen) > len(steps) {
			t.Fatalf("unexpected planner call %d", len(seen))
		}
		return steps[len(seen)-1](req)
	}), &seen
}

func answer(text string) func(*PlanRequest) Reply {
	return func(*PlanRequest) Reply { return msgReply(text, llm.StopStop) }
}

func overflow(*PlanRequest) Reply { return errReply("400 prompt is too long", true) }

func regionPrep(r *Region, tailTokens int) *Preparation {
	id := "tail"
	return &Preparation{Region: r, FirstKeptEntryID: &id, KeptTailTokens: tailTokens, TokensBefore: 1000,
		Parameters: Parameters{CompressionRatio: 0.5, PreserveRecent: 2, Query: "q"}}
}

func TestRunPlanned(t *testing.T) {
	p := regionPrep(lines(40), 7)
	pl, seen := script(t, answer("1,10\n30,35"))
	res, err := Run(context.Background(), p, RunOptions{Candidates: []Candidate{{Planner: pl}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rung != RungPlanned || res.PromptVersion != PromptVersion || *res.FirstKeptEntryID != "tail" {
		t.Fatalf("result %+v", res)
	}
	if !strings.HasPrefix(res.CompactedText, "(filtered 10 lines)\nL11\n") || !strings.Contains(res.CompactedText, "L29\n(filtered 6 lines)\nL36") {
		t.Fatalf("text %q", res.CompactedText)
	}
	st := res.Stats
	if st.LinesBefore != 40 || st.LinesDeleted != 16 || st.LinesKept != 24 || st.RangeCount != 2 || st.TokensBefore != 1000 ||
		st.TokensAfter != llm.EstimateTextTokens(res.CompactedText)+7 {
		t.Fatalf("stats %+v", st)
	}
	if len(*seen) != 1 || (*seen)[0].TargetKeep != 20 || (*seen)[0].Offset != 0 {
		t.Fatal("one request for the whole region")
	}
}

func TestRunTrimsOnOverflow(t *testing.T) {
	r := NewRegion("[User]: <keepContext>\nkeep\n</keepContext>\n" + lines(97).Text())
	p := regionPrep(r, 0)
	pl, seen := script(t, overflow, overflow, answer("1,2\n20,21"))
	res, err := Run(context.Background(), p, RunOptions{Candidates: []Candidate{{Planner: pl}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(*seen) != 3 || (*seen)[1].Offset != 50 || (*seen)[2].Offset != 75 || (*seen)[2].Lines != 25 {
		t.Fatalf("offsets %d %d", (*seen)[1].Offset, (*seen)[2].Offset)
	}
	if !strings.HasPrefix((*seen)[2].Prompt, "Choose") || !strings.Contains((*seen)[2].Prompt, "\n1→L73\n") {
		t.Fatal("the trimmed view is renumbered from 1")
	}
	// The protected head survives the deterministic {1, 75} deletion;
	// view lines 1-2 (region 76-77, L73-L74) join it, view lines 20-21
	// are region lines 95-96 (L92-L93).
	want := "[User]: <keepContext>\nkeep\n</keepContext>\n(filtered 74 lines)\nL75\n"
	if !strings.HasPrefix(res.CompactedText, want) || !strings.Contains(res.CompactedText, "L91\n(filtered 2 lines)\nL94") {
		t.Fatalf("text %q", res.CompactedText)
	}
}

func TestRunRecoverableFailure(t *testing.T) {
	p := regionPrep(lines(40), 0)
	pl, _ := script(t, answer("Sure! Delete lines 1 to 10."))
	_, err := Run(context.Background(), p, RunOptions{Candidates: []Candidate{{Planner: pl}}})
	var rpe *RangePlanError
	if !errors.As(err, &rpe) || rpe.Message != ErrMalformed.Error() {
		t.Fatalf("err %v", err)
	}
	// Every rung overflows: recoverable gives up with the overflow.
	steps := make([]func(*PlanRequest) Reply, 8)
	for i := range steps {
		steps[i] = overflow
	}
	pl, seen := script(t, steps...)
	if _, err := Run(context.Background(), p, RunOptions{Candidates: []Candidate{{Planner: pl}}}); err == nil {
		t.Fatal("want error")
	}
	// 40 lines: 0, 20, 30, 35, 37, 38, 39.
	if len(*seen) != 7 {
		t.Fatalf("attempts %d", len(*seen))
	}
}

func TestRunFallsBackToNextCandidate(t *testing.T) {
	p := regionPrep(lines(40), 0)
	bad, _ := script(t, func(*PlanRequest) Reply { return errReply("401 invalid api key", false) })
	good, _ := script(t, answer("1,5"))
	res, err := Run(context.Background(), p, RunOptions{Candidates: []Candidate{
		{Unavailable: "no credentials"}, {Planner: bad}, {Planner: good, Borrowed: &PlannerModel{Provider: "x", ID: "y"}},
	}})
	if err != nil || res.PlannerModel == nil || res.PlannerModel.ID != "y" {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestRunFreshRung(t *testing.T) {
	r := NewRegion("[User]: a\n<keepContext>\nimportant\n</keepContext>\n" + lines(30).Text())
	pl, _ := script(t, answer("nope"))
	res, err := Run(context.Background(), regionPrep(r, 500), RunOptions{Urgency: LoadBearing, ContextWindow: 1000, Candidates: []Candidate{{Planner: pl}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rung != RungFresh || res.CompactedText != "(filtered 1 lines)\n<keepContext>\nimportant\n</keepContext>\n(filtered 30 lines)" || res.FirstKeptEntryID == nil {
		t.Fatalf("%+v", res)
	}
	// A tail that does not fit the window is dropped.
	res = Fresh(regionPrep(r, 5000), 1000)
	if res.FirstKeptEntryID != nil || res.Stats.TokensAfter != llm.EstimateTextTokens(res.CompactedText) {
		t.Fatalf("tail kept: %+v", res)
	}
	// Too small: nothing to compact, unless a load-bearing caller allows
	// a small region, which goes fresh.
	small := regionPrep(lines(5), 0)
	if _, err := Run(context.Background(), small, RunOptions{}); !errors.Is(err, ErrTooSmall) {
		t.Fatalf("too small: %v", err)
	}
	if _, err := Run(context.Background(), small, RunOptions{Urgency: LoadBearing}); !errors.Is(err, ErrTooSmall) {
		t.Fatalf("load-bearing small: %v", err)
	}
	if res, err := Run(context.Background(), small, RunOptions{Urgency: LoadBearing, AllowSmallRegion: true}); err != nil || res.Rung != RungFresh {
		t.Fatalf("load-bearing small allowed: %+v %v", res, err)
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pl := PlannerFunc(func(ctx context.Context, req *PlanRequest) Reply {
		cancel()
		return Reply{Aborted: true}
	})
	_, err := Run(ctx, regionPrep(lines(40), 0), RunOptions{Urgency: LoadBearing, Candidates: []Candidate{{Planner: pl}}})
	if !errors.Is(err, ErrCancelled) {
		t.Fatalf("err %v", err)
	}
}

func TestFromExtension(t *testing.T) {
	p := regionPrep(lines(40), 10)
	res := FromExtension(p, "line a\nline b")
	if res.Rung != RungExtension || res.Stats.LinesKept != 2 || res.Stats.LinesDeleted != 38 || res.Stats.RangeCount != 0 ||
		res.Stats.TokensAfter != 4+10 || *res.FirstKeptEntryID != "tail" {
		t.Fatalf("%+v", res)
	}
}
