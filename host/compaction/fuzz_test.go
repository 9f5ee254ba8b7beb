package compaction

import (
	"strings"
	"testing"
)

// FuzzParseValidate feeds arbitrary planner replies through parsing,
// validation and reconstruction and checks the invariants that keep the
// transcript intact: ranges are in bounds, sorted, disjoint, never touch a
// protected line, and the rebuilt text holds every kept line unchanged and
// in order.
func FuzzParseValidate(f *testing.F) {
	f.Add("1,5\n10,12\n", "[User]: a\nb\n<keepContext>\nc\n</keepContext>\nd\ne\n(filtered 3 lines)\nf\ng\nh\ni\nj", false)
	f.Add("1,999999", "x\ny\nz", false)
	f.Add("120,180\n6,40\n300,", "a\nb", true)
	f.Add("```\n1,2\n```", "a", false)
	f.Add("0,0\n5,3\n-1,2", "[User]: <keepContext>\n1\n2\n3\n4\n5", false)
	f.Fuzz(func(t *testing.T, reply, text string, cut bool) {
		r := NewRegion(text)
		var raw []Range
		var err error
		if cut {
			raw, err = RecoverRecords(reply)
		} else {
			raw, err = ParseRecords(reply)
		}
		if err != nil {
			return
		}
		rs := Validate(raw, r)
		n := r.Len()
		prev := -1
		for _, x := range rs {
			if x.Start < 1 || x.End > n || x.Start > x.End {
				t.Fatalf("range %v out of 1..%d", x, n)
			}
			if x.Start <= prev+1 && prev >= 0 {
				t.Fatalf("ranges %v not sorted/disjoint/non-adjacent", rs)
			}
			for l := x.Start; l <= x.End; l++ {
				if r.Protected(l) {
					t.Fatalf("range %v covers protected line %d", x, l)
				}
			}
			prev = x.End
		}
		rec := Reconstruct(r, rs)
		deleted := make([]bool, n+1)
		for _, x := range rec.Runs {
			for l := x.Start; l <= x.End; l++ {
				deleted[l] = true
			}
		}
		// Rebuild the expected text independently from the runs.
		var want []string
		for l := 1; l <= n; l++ {
			if !deleted[l] {
				want = append(want, r.Lines[l-1])
				continue
			}
			if l == 1 || !deleted[l-1] {
				want = append(want, "\n") // a line can never be "\n": marks a run
			}
		}
		got := strings.Split(rec.Text, "\n")
		if len(got) != len(want) {
			t.Fatalf("line count %d, want %d", len(got), len(want))
		}
		for i := range got {
			if want[i] == "\n" {
				if !strings.HasPrefix(got[i], "(filtered ") || markerCount(got[i]) < 1 {
					t.Fatalf("line %d: %q is not a marker", i+1, got[i])
				}
				continue
			}
			if got[i] != want[i] {
				t.Fatalf("line %d changed: %q, want %q", i+1, got[i], want[i])
			}
		}
		for l := 1; l <= n; l++ {
			if r.Protected(l) && deleted[l] {
				t.Fatalf("protected line %d deleted", l)
			}
		}
		if rec.Stats.LinesKept+rec.Stats.LinesDeleted != n {
			t.Fatalf("stats %+v", rec.Stats)
		}
	})
}
