package grpcext

import (
	"bytes"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A flood keeps the burst, drops the rest, and reports exactly how many
// lines it dropped once a line gets through again.
func TestLogWriterFloodCount(t *testing.T) {
	var out bytes.Buffer
	w := newLogWriter(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})), "stderr")
	const flood = 5000
	var in bytes.Buffer
	for i := 0; i < flood; i++ {
		fmt.Fprintf(&in, "line %d\n", i)
	}
	if _, err := w.Write(in.Bytes()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // tokens for a few more lines
	if _, err := w.Write([]byte("after the flood\n")); err != nil {
		t.Fatal(err)
	}
	logs := out.String()
	kept := strings.Count(logs, `msg="line `)
	suppressed := 0
	for _, m := range regexp.MustCompile(`suppressed=(\d+)`).FindAllStringSubmatch(logs, -1) {
		n, _ := strconv.Atoi(m[1])
		suppressed += n
	}
	// Every dropped line is counted in some report, also when a slow run
	// lets a line through mid-flood and a second streak begins.
	if kept+suppressed != flood {
		t.Fatalf("kept %d + reported suppressed %d != %d\n%s", kept, suppressed, flood, logs[len(logs)-min(len(logs), 500):])
	}
	if kept < logBurst || kept > logBurst+100 || !strings.Contains(logs, "suppressing lines") || !strings.Contains(logs, "flood over") ||
		!strings.Contains(logs, `msg="after the flood"`) {
		t.Fatalf("kept %d lines:\n%s", kept, logs[len(logs)-min(len(logs), 800):])
	}
}
