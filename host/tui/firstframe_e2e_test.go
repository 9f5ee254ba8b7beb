package tui_test

import (
	"bytes"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/atomic-go/atomic/internal/e2e"
)

// TestFirstFrameTiming measures exec to the first frame with the footer
// (the bytes of the model's name read from the pty, no emulator, no
// polling) TUI_FIRST_FRAME_RUNS times and logs the median, least and
// most; a figure for BENCHMARKS.md, not a check. Skipped without the
// variable. TUI_FIRST_FRAME_BINS (paths separated by ":") compares
// binaries, run in turn.
func TestFirstFrameTiming(t *testing.T) {
	runs, _ := strconv.Atoi(os.Getenv("TUI_FIRST_FRAME_RUNS"))
	if runs <= 0 {
		t.Skip("set TUI_FIRST_FRAME_RUNS to measure")
	}
	bins := []string{e2e.Binary(t)}
	if b := os.Getenv("TUI_FIRST_FRAME_BINS"); b != "" {
		bins = strings.Split(b, ":")
	}
	ms := map[string][]float64{}
	for i := range runs * len(bins) {
		bin := bins[i%len(bins)]
		cmd, _ := e2e.Command(t, e2e.Options{NoMode: true, Env: map[string]string{"TERM": "xterm-256color", "NO_COLOR": ""}})
		cmd.Path, cmd.Args[0] = bin, bin
		start := time.Now()
		ptm, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
		if err != nil {
			t.Fatal(err)
		}
		var seen bytes.Buffer
		buf := make([]byte, 64<<10)
		for !bytes.Contains(seen.Bytes(), []byte("faux/faux-1")) {
			n, err := ptm.Read(buf)
			seen.Write(buf[:n])
			if err != nil {
				t.Fatalf("the pty ended before the footer: %v", err)
			}
		}
		ms[bin] = append(ms[bin], float64(time.Since(start).Microseconds())/1000)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		ptm.Close()
	}
	for _, bin := range bins {
		v := ms[bin]
		sort.Float64s(v)
		t.Logf("%s: exec to the first frame with the footer, %d runs: median %.1f ms, least %.1f, most %.1f", bin, runs, v[len(v)/2], v[0], v[len(v)-1])
	}
}
