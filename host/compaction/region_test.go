package compaction

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
)

func TestKeepContextSpans(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []int
	}{
		{"simple span", "[User]: a\n<keepContext>\nkeep me\n</keepContext>\nafter", []int{2, 3, 4}},
		{"tags on the header line", "[User]: <keepContext>\nx\n[User]: </keepContext>\ny", []int{1, 2}},
		{"close on its own message", "[User]: <keepContext>\nx\n</keepContext>\ny", []int{1, 2, 3}},
		{"case and blanks", "[Assistant]: a\n  <KEEPCONTEXT>  \nb\n</keepcontext>\nc", []int{2, 3, 4}},
		{"unclosed runs to next header", "[User]: a\n<keepContext>\nb\nc\n\n[Assistant]: d\ne", []int{2, 3, 4, 5}},
		{"unclosed runs to region end", "[User]: a\n<keepContext>\nb", []int{2, 3}},
		{"nested opens flatten", "[User]: a\n<keepContext>\n<keepContext>\nb\n</keepContext>\nc\n</keepContext>", []int{2, 3, 4, 5}},
		{"close without open ignored", "[User]: a\n</keepContext>\nb", nil},
		{"inert inside tool results", "[Tool result]: x\n<keepContext>\ny\n</keepContext>", nil},
		{"tool result header ends a span", "[User]: <keepContext>\na\n[Tool result]: b\n</keepContext>", []int{1, 2}},
		{"role resets after tool result", "[Tool result]: x\n<keepContext>\n[User]: <keepContext>\nz", []int{3, 4}},
		{"tag with text is not a tag", "[User]: see <keepContext> here\nb\n</keepContext>", nil},
		{"before any header", "<keepContext>\na\n</keepContext>\n[User]: b", []int{1, 2, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewRegion(c.text)
			if got := r.ProtectedLineNumbers(); !equalInts(got, c.want) {
				t.Fatalf("protected %v, want %v", got, c.want)
			}
			if r.ProtectedCount() != len(c.want) {
				t.Fatalf("count %d", r.ProtectedCount())
			}
		})
	}
}

func TestPriorMarkers(t *testing.T) {
	r := NewRegion("(filtered 12 lines)\n(filtered 1 lines)\n (filtered 3 lines)\n(filtered x lines)\n(filtered 0 lines)\n(filtered 5 lines) \n(filtered 007 lines)")
	want := []int{12, 1, 0, 0, 0, 0, 7}
	for i, w := range want {
		if got := r.PriorMarker(i + 1); got != w {
			t.Errorf("line %d: marker %d, want %d", i+1, got, w)
		}
	}
}

func TestRegionJSONAndView(t *testing.T) {
	r := NewRegion("[User]: a\n(filtered 4 lines)\n<keepContext>\nb\n</keepContext>\n[Assistant]: c")
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"lines":["[User]: a","(filtered 4 lines)","\u003ckeepContext\u003e","b","\u003c/keepContext\u003e","[Assistant]: c"],"headerLineNumbers":[1,6],"priorMarkerNs":{"2":4},"protectedLineNumbers":[3,4,5],"tokenEstimate":19}`
	if string(data) != want {
		t.Fatalf("json\n got %s\nwant %s", data, want)
	}
	v := r.View(2)
	if v.Len() != 4 || v.Lines[0] != "<keepContext>" || !v.Protected(1) || v.Protected(4) || v.ProtectedCount() != 3 {
		t.Fatalf("view: %+v", v.ProtectedLineNumbers())
	}
	if got := v.HeaderLineNumbers(); !equalInts(got, []int{4}) {
		t.Fatalf("view headers %v", got)
	}
	if v.TokenEstimate != llm.EstimateTextTokens(strings.Join(v.Lines, "\n")) {
		t.Fatalf("view token estimate %d", v.TokenEstimate)
	}
	if r.View(1).PriorMarker(1) != 4 {
		t.Fatal("markers must be rebased in a view")
	}
}
