package tui

import (
	"strings"
	"testing"
)

func TestPasteMarkers(t *testing.T) {
	var p pastes
	small := p.add("one line")
	big := p.add(strings.Repeat("x", 1200))
	many := p.add(strings.Repeat("l\n", 11) + "l")
	if small != "one line" || big != "[paste #1 1200 chars]" || many != "[paste #2 +12 lines]" {
		t.Fatalf("got %q %q %q", small, big, many)
	}
	got := p.expand("a " + big + " b [paste #9 +3 lines] " + many)
	want := "a " + strings.Repeat("x", 1200) + " b [paste #9 +3 lines] " + strings.Repeat("l\n", 11) + "l"
	if got != want {
		t.Fatalf("expand: %q", got)
	}
}

func TestMarkerAround(t *testing.T) {
	var p pastes
	mk := p.add(strings.Repeat("x\n", 20))
	line := []rune("a " + mk + " b [paste #7 3 chars]")
	end := 2 + len([]rune(mk))
	if f, to, ok := p.markerAround(line, end, true); !ok || f != 2 || to != end {
		t.Fatalf("backward at the end: %d %d %v", f, to, ok)
	}
	if f, to, ok := p.markerAround(line, 2, false); !ok || f != 2 || to != end {
		t.Fatalf("forward at the start: %d %d %v", f, to, ok)
	}
	if _, _, ok := p.markerAround(line, end-1, true); ok {
		t.Fatal("inside the marker")
	}
	if _, _, ok := p.markerAround(line, len(line), true); ok {
		t.Fatal("a marker of no paste")
	}
}

func TestBrokenMarker(t *testing.T) {
	var p pastes
	mk := p.add(strings.Repeat("y", 1500)) // [paste #1 1500 chars]
	for text, want := range map[string]string{
		"a " + mk:                   "",
		"a":                         "",
		"a [paste #1 150 chars]":    "", // a whole marker of the paste, the count edited
		"a [paste #1 1500 chrs]":    "#1",
		"a [paste #1500 chars]":     "#1",
		"a [paste #2 +3 lines] end": "",
	} {
		if got := p.broken(text); got != want {
			t.Errorf("broken(%q) = %q, want %q", text, got, want)
		}
	}
}
