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

// TestKeystrokeEchoTiming measures a typed letter to its echo (the first
// bytes from the pty holding it) TUI_ECHO_RUNS times, with the same
// TUI_FIRST_FRAME_BINS; a figure, not a check.
func TestKeystrokeEchoTiming(t *testing.T) {
	runs, _ := strconv.Atoi(os.Getenv("TUI_ECHO_RUNS"))
	if runs <= 0 {
		t.Skip("set TUI_ECHO_RUNS to measure")
	}
	bins := []string{e2e.Binary(t)}
	if b := os.Getenv("TUI_FIRST_FRAME_BINS"); b != "" {
		bins = strings.Split(b, ":")
	}
	for _, bin := range bins {
		cmd, _ := e2e.Command(t, e2e.Options{NoMode: true, Env: map[string]string{"TERM": "xterm-256color", "NO_COLOR": ""}})
		cmd.Path, cmd.Args[0] = bin, bin
		ptm, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
		if err != nil {
			t.Fatal(err)
		}
		reads := make(chan []byte, 1024)
		go func() {
			buf := make([]byte, 64<<10)
			for {
				n, err := ptm.Read(buf)
				if n > 0 {
					reads <- append([]byte(nil), buf[:n]...)
				}
				if err != nil {
					close(reads)
					return
				}
			}
		}()
		var seen bytes.Buffer
		for !bytes.Contains(seen.Bytes(), []byte("faux/faux-1")) {
			b, ok := <-reads
			if !ok {
				t.Fatal("the pty ended before the footer")
			}
			seen.Write(b)
		}
		var ms []float64
		for range runs {
			time.Sleep(20 * time.Millisecond)
		drain:
			for {
				select {
				case <-reads:
				default:
					break drain
				}
			}
			start := time.Now()
			if _, err := ptm.WriteString("z"); err != nil {
				t.Fatal(err)
			}
			for b := range reads {
				if bytes.Contains(b, []byte("z")) {
					break
				}
			}
			ms = append(ms, float64(time.Since(start).Microseconds())/1000)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		ptm.Close()
		sort.Float64s(ms)
		t.Logf("%s: keystroke to echo, %d keys: p50 %.1f ms, p90 %.1f, least %.1f, most %.1f", bin, runs, ms[len(ms)/2], ms[len(ms)*9/10], ms[0], ms[len(ms)-1])
	}
}
