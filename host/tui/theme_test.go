package tui

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestOKColours(t *testing.T) {
	for _, c := range []struct {
		got, want [3]uint8
	}{
		{okhsl(29.23, 1, 0.568), [3]uint8{255, 0, 0}}, // sRGB red, at OKHSL's full saturation
		{okhsl(0, 0, 0.5), [3]uint8{119, 119, 119}},   // OKHSL's middle grey
		{okhsl(90, 0.5, 1), [3]uint8{255, 255, 255}},
		{oklch(0, 0.2, 10), [3]uint8{0, 0, 0}},
		{oklch(0.6, 0, 0), [3]uint8{128, 128, 128}},
		{oklch(0.628, 0.2577, 29.23), [3]uint8{255, 0, 0}}, // red, just inside the gamut
	} {
		for i := range 3 {
			if d := int(c.got[i]) - int(c.want[i]); d < -1 || d > 1 {
				t.Errorf("got %v, want %v", c.got, c.want)
				break
			}
		}
	}
}

func TestResolveColor(t *testing.T) {
	vars := map[string]json.RawMessage{"a": json.RawMessage(`"b"`), "b": json.RawMessage(`"#0af"`), "loop": json.RawMessage(`"loop"`)}
	if c, err := resolveColor(json.RawMessage(`"a"`), vars, 0); err != nil || c == nil {
		t.Fatalf("a var chain: %v %v", c, err)
	}
	if c, err := resolveColor(json.RawMessage(`""`), vars, 0); err != nil || c != nil {
		t.Fatalf(`"" is the terminal's colour: %v %v`, c, err)
	}
	for raw, want := range map[string]string{`"loop"`: "circle", `"nope"`: "no variable", `256`: "0 to 255", `"#12"`: "#rgb", `"okhsl(1 2 3)"`: "okhsl(", `true`: "colour string"} {
		if _, err := resolveColor(json.RawMessage(raw), vars, 0); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", raw, err, want)
		}
	}
}
