package jsonl

import (
	"io"
	"strings"
	"testing"
)

// endless is an input of n bytes of 'x' with no newline.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	if e.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), e.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	e.n -= k
	return k, nil
}

func TestReadLinesMax(t *testing.T) {
	long := strings.Repeat("y", 300)
	in := "a\r\n" + long + "\nb\n" + strings.Repeat("z", 101) + "\r\n" + strings.Repeat("w", 100) + "\nlast" + long
	var got, heads []string
	if err := ReadLinesMax(strings.NewReader(in), 100, func(l []byte) { got = append(got, string(l)) },
		func(h []byte) { heads = append(heads, string(h)) }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != "a|b|"+strings.Repeat("w", 100) {
		t.Fatalf("lines %q", got)
	}
	if len(heads) != 3 || heads[0] != long || heads[1] != strings.Repeat("z", 101)+"\r" || heads[2] != "last"+long {
		t.Fatalf("heads %q", heads)
	}
}

// A record far longer than the bound, without a newline, is discarded as
// it is read: what is kept of it is its head.
func TestReadLinesMaxEndless(t *testing.T) {
	var head []byte
	n := 0
	if err := ReadLinesMax(&endless{n: 64 << 20}, 1<<20, func([]byte) { n++ }, func(h []byte) { head = h }); err != nil {
		t.Fatal(err)
	}
	if n != 0 || len(head) != HeadMax {
		t.Fatalf("%d lines, head of %d bytes", n, len(head))
	}
}
