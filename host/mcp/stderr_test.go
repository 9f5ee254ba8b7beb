package mcp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/tools"
)

// A stderr line over 64 KiB is cut, and the lines after it are still
// read: the crash reason that comes later is kept.
func TestLongStderrLineKeepsCapture(t *testing.T) {
	h := newHarness(t)
	script := fmt.Sprintf("head -c 200000 /dev/zero | tr '\\0' x >&2; echo >&2; echo after-the-long-line >&2; exec %s", testServerBin)
	h.apply(Server{Name: "s", Source: "test", Config: ServerConfig{Command: "sh", Args: []string{"-c", script}, Exposure: tools.ExposureDirect}})
	_, err := h.call("mcp__s__crash", nil)
	if err == nil || !strings.Contains(err.Error(), "crashing now") {
		t.Fatalf("crash = %v (tail %q)", err, h.status("s").StderrTail)
	}
	tail := h.status("s").StderrTail
	for _, want := range []string{"after-the-long-line", "crashing now"} {
		if !strings.Contains(tail, want) {
			t.Fatalf("stderr tail lacks %q: %q", want, tail)
		}
	}
}

func TestReadLinesCutsAndGoesOn(t *testing.T) {
	in := strings.Repeat("y", 100) + "\nshort\r\n" + strings.Repeat("z", 10) + "\nno newline"
	var got []string
	readLines(strings.NewReader(in), 8, func(l string) { got = append(got, l) })
	want := []string{"yyyyyyyy … (92 more bytes of this line left out)", "short", "zzzzzzzz … (2 more bytes of this line left out)", "no newli … (2 more bytes of this line left out)"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("lines %q", got)
	}
}
