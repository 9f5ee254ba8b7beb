package proc

import (
	"strings"
	"sync"
)

// Tail keeps the end of a child's output, at most Max bytes of whole
// lines (a longer last line is cut at its start), for error messages.
// It is safe for concurrent use; the zero value keeps 4 KiB.
type Tail struct {
	Max int

	mu  sync.Mutex
	buf []byte
}

func (t *Tail) max() int {
	if t.Max <= 0 {
		return 4096
	}
	return t.Max
}

// Write appends output.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max(); over > 0 {
		cut := over
		// Drop whole lines where the cut allows it.
		if i := strings.IndexByte(string(t.buf[over:]), '\n'); i >= 0 && i < len(t.buf)-over-1 {
			cut = over + i + 1
		}
		t.buf = append(t.buf[:0:0], t.buf[cut:]...)
	}
	return len(p), nil
}

// AddLine appends one line (without its newline).
func (t *Tail) AddLine(line string) {
	_, _ = t.Write([]byte(line + "\n"))
}

// String returns the kept output without a trailing newline.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimRight(string(t.buf), "\n")
}

// LastLine returns the last line kept that is not blank, trimmed.
func (t *Tail) LastLine() string {
	lines := strings.Split(t.String(), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}
