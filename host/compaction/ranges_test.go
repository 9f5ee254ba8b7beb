package compaction

import (
	"reflect"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
)

func TestValidate(t *testing.T) {
	r := NewRegion(strings.Join([]string{
		"[User]: 1", "2", "3", "4", "<keepContext>", "6", "</keepContext>", "8", "9", "10",
	}, "\n"))
	cases := []struct {
		name string
		raw  []Range
		want []Range
	}{
		{"reversed swapped", []Range{{3, 2}}, []Range{{2, 3}}},
		{"clamped", []Range{{0, 3}, {9, 500}}, []Range{{1, 3}, {9, 10}}},
		{"outside dropped", []Range{{11, 20}, {0, 0}}, nil},
		{"sorted", []Range{{9, 9}, {1, 1}}, []Range{{1, 1}, {9, 9}}},
		{"overlap merged", []Range{{1, 3}, {2, 4}}, []Range{{1, 4}}},
		{"adjacent merged", []Range{{1, 2}, {3, 4}}, []Range{{1, 4}}},
		{"contained merged", []Range{{1, 4}, {2, 3}}, []Range{{1, 4}}},
		{"gap kept", []Range{{1, 2}, {4, 4}}, []Range{{1, 2}, {4, 4}}},
		{"split around protected", []Range{{1, 10}}, []Range{{1, 4}, {8, 10}}},
		{"protected only", []Range{{5, 7}}, nil},
		{"ends on protected", []Range{{3, 6}}, []Range{{3, 4}}},
		{"duplicates", []Range{{2, 2}, {2, 2}}, []Range{{2, 2}}},
		{"whole", []Range{{1, 999999}}, []Range{{1, 4}, {8, 10}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Validate(c.raw, r); !reflect.DeepEqual(nilIfEmpty(got), c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestReconstructGolden(t *testing.T) {
	r := NewRegion(Serialize(sampleMessages()))
	rec := Reconstruct(r, Validate([]Range{{2, 3}, {5, 7}, {12, 16}, {18, 22}, {33, 40}}, r))
	golden(t, "reconstruct.golden", rec.Text)
	want := Stats{LinesBefore: 33, LinesDeleted: 16, LinesKept: 17, RangeCount: 5,
		TokensBefore: r.TokenEstimate, TokensAfter: llm.EstimateTextTokens(rec.Text)}
	want.PercentReduction = percentReduction(want.TokensBefore, want.TokensAfter)
	if rec.Stats != want {
		t.Fatalf("stats %+v, want %+v", rec.Stats, want)
	}
}

func TestReconstructKeepsLinesVerbatim(t *testing.T) {
	r := NewRegion("  indented\ttab\n\nunicode ✓ 😀\n[User]: x\ntrailing space ")
	rec := Reconstruct(r, []Range{{2, 2}})
	want := "  indented\ttab\n(filtered 1 lines)\nunicode ✓ 😀\n[User]: x\ntrailing space "
	if rec.Text != want {
		t.Fatalf("got %q", rec.Text)
	}
	if rec := Reconstruct(r, nil); rec.Text != r.Text() || rec.Stats.LinesDeleted != 0 || rec.Stats.RangeCount != 0 {
		t.Fatalf("no ranges must give the region back: %q", rec.Text)
	}
}

func TestReconstructCumulativeMarkers(t *testing.T) {
	text := strings.Join([]string{
		"[User]: start",       // 1
		"(filtered 10 lines)", // 2  borders deletion 3 → folded
		"a",                   // 3
		"b",                   // 4
		"(filtered 5 lines)",  // 5  inside deletion 4-6
		"c",                   // 6
		"(filtered 7 lines)",  // 7  chain: borders 6 → folded
		"(filtered 2 lines)",  // 8  chain continues → folded
		"kept",                // 9
		"(filtered 3 lines)",  // 10 not bordering a deletion → stays as is
		"kept too",            // 11
		"(filtered 4 lines)",  // 12 borders deletion 13 from above → folded
		"(filtered 6 lines)",  // 13 deleted by the planner
		"end",                 // 14
	}, "\n")
	r := NewRegion(text)
	rec := Reconstruct(r, Validate([]Range{{3, 4}, {6, 6}, {13, 13}}, r))
	// Run 2..8: 7 lines + (10-1) + (5-1) + (7-1) + (2-1) = 27.
	// Run 12..13: 2 lines + (4-1) + (6-1) = 10.
	want := "[User]: start\n(filtered 27 lines)\nkept\n(filtered 3 lines)\nkept too\n(filtered 10 lines)\nend"
	if rec.Text != want {
		t.Fatalf("got\n%s\nwant\n%s", rec.Text, want)
	}
	if !reflect.DeepEqual(rec.Runs, []Range{{2, 8}, {12, 13}}) || rec.Stats.LinesDeleted != 9 || rec.Stats.LinesKept != 5 || rec.Stats.RangeCount != 2 {
		t.Fatalf("runs %v stats %+v", rec.Runs, rec.Stats)
	}
	// A second compaction of the result keeps counting: 7 lines, plus
	// (27-1) + (3-1) + (10-1) for the markers = 44.
	again := NewRegion(rec.Text)
	if rec2 := Reconstruct(again, Validate([]Range{{1, 7}}, again)); rec2.Text != "(filtered 44 lines)" {
		t.Fatalf("second pass %q", rec2.Text)
	}
}

func TestReconstructProtectedMarkerNotFolded(t *testing.T) {
	r := NewRegion("[User]: <keepContext>\n(filtered 9 lines)\n</keepContext>\nx\ny")
	rec := Reconstruct(r, Validate([]Range{{1, 5}}, r))
	want := "[User]: <keepContext>\n(filtered 9 lines)\n</keepContext>\n(filtered 2 lines)"
	if rec.Text != want {
		t.Fatalf("got %q", rec.Text)
	}
}

func TestPercentReduction(t *testing.T) {
	for _, c := range []struct {
		before, after int
		want          float64
	}{{1000, 480, 52}, {3, 2, 33.3}, {3, 1, 66.7}, {0, 5, 0}, {100, 100, 0}, {8, 1, 87.5}} {
		if got := percentReduction(c.before, c.after); got != c.want {
			t.Errorf("%d→%d: %v, want %v", c.before, c.after, got, c.want)
		}
	}
}
