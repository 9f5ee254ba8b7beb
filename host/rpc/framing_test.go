package rpc

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	if err := ReadLines(r, func(line []byte) { out = append(out, string(line)) }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReadLines(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"empty input", "", nil},
		{"one line", "a\n", []string{"a"}},
		{"no final LF", "a\nb", []string{"a", "b"}},
		{"CRLF", "a\r\nb\r\n", []string{"a", "b"}},
		{"one CR stripped", "a\r\r\n", []string{"a\r"}},
		{"CR inside kept", "a\rb\n", []string{"a\rb"}},
		{"CR only at EOF", "a\n\r", []string{"a", ""}},
		{"final CR without LF", "a\r", []string{"a"}},
		{"blank lines are frames", "\n\n \n", []string{"", "", " "}},
		{"unicode separators", "x\u2028y\u2029z\n\u0085next\n", []string{"x\u2028y\u2029z", "\u0085next"}},
		{"binary", "\x00\xff\n\xfe", []string{"\x00\xff", "\xfe"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, wrap := range []func(io.Reader) io.Reader{
				func(r io.Reader) io.Reader { return r },
				iotest.OneByteReader,
				iotest.HalfReader,
				iotest.DataErrReader,
			} {
				if got := readAll(t, wrap(strings.NewReader(c.in))); !reflect.DeepEqual(got, c.want) {
					t.Fatalf("got %q, want %q", got, c.want)
				}
			}
		})
	}
}

func TestReadLinesLongRecords(t *testing.T) {
	// Records around and far beyond the 64 KiB read buffer, with the CR
	// of a CRLF landing on a buffer boundary.
	var in bytes.Buffer
	var want []string
	for _, n := range []int{64*1024 - 2, 64*1024 - 1, 64 * 1024, 64*1024 + 1, 3 << 20} {
		s := strings.Repeat("x", n)
		want = append(want, s)
		in.WriteString(s + "\r\n")
	}
	big := strings.Repeat("y", 5<<20)
	want = append(want, big)
	in.WriteString(big) // last record without LF
	got := readAll(t, iotest.HalfReader(&in))
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("record %d: %d bytes, want %d", i, len(got[i]), len(want[i]))
		}
	}
}

func TestReadLinesError(t *testing.T) {
	boom := errors.New("boom")
	var got []string
	err := ReadLines(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)), func(l []byte) { got = append(got, string(l)) })
	if !errors.Is(err, boom) || !reflect.DeepEqual(got, []string{"a"}) {
		t.Fatalf("err %v, lines %q", err, got)
	}
}

func TestParseCommand(t *testing.T) {
	cases := []struct {
		line    string
		typ     string
		id      string
		command string // of the error response; "-" for no error
		err     string
	}{
		{`{"type":"get_state"}`, "get_state", "", "-", ""},
		{` {"id" : "a b" ,"type":"x"} `, "x", `"a b"`, "-", ""},
		{`{"id":{ "n" : [1, 2] },"type":"x"}`, "x", `{"n":[1,2]}`, "-", ""},
		{`{"id":null,"type":"x"}`, "x", `null`, "-", ""},
		{``, "", "", "parse", "Failed to parse command: "},
		{`nope`, "", "", "parse", "Failed to parse command: "},
		{`{"type":`, "", "", "parse", "Failed to parse command: "},
		{`{"type":"a"}x`, "", "", "parse", "Failed to parse command: "},
		{`[1]`, "", "", "unknown", "Invalid command: a command must be a JSON object"},
		{`"s"`, "", "", "unknown", "Invalid command"},
		{`null`, "", "", "unknown", "Invalid command"},
		{`{"id":3}`, "", "3", "", "Unknown command: undefined"},
		{`{"id":3,"type":null}`, "", "3", "", "Unknown command: undefined"},
		{`{"id":"q","type":["x"]}`, "", `"q"`, "unknown", `"type" must be a string`},
	}
	for _, c := range cases {
		req, lerr := ParseCommand([]byte(c.line))
		if c.command == "-" {
			if lerr != nil || req.Type != c.typ || string(req.ID) != c.id {
				t.Errorf("%q: req %+v err %v", c.line, req, lerr)
			}
			continue
		}
		if lerr == nil {
			t.Errorf("%q: no error", c.line)
			continue
		}
		if lerr.Command != c.command || !strings.Contains(lerr.Error(), c.err) || string(lerr.ID) != c.id {
			t.Errorf("%q: got command %q id %s error %q", c.line, lerr.Command, lerr.ID, lerr.Error())
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	var c struct {
		Message *string  `json:"message"`
		Count   int      `json:"count"`
		Flags   []string `json:"flags"`
		Nested  struct {
			On bool `json:"on"`
		} `json:"nested"`
	}
	cases := map[string]string{
		`{"message":5}`:           `field "message" must be a string, got number`,
		`{"count":"x"}`:           `field "count" must be a number, got string`,
		`{"flags":{}}`:            `field "flags" must be an array, got object`,
		`{"nested":{"on":"yes"}}`: `field "nested.on" must be a boolean, got string`,
		`{"nested":[]}`:           `field "nested" must be an object, got array`,
	}
	for in, want := range cases {
		err := (&Request{Raw: []byte(in)}).Decode(&c)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "Invalid command: ") {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

// FuzzReadLines compares ReadLines, read in uneven chunks, with the
// definition of the framing: split on LF, drop the empty piece after a
// final LF, strip one trailing CR from each record.
func FuzzReadLines(f *testing.F) {
	for _, s := range []string{"", "a", "a\n", "a\r\n\r\n", "\r", "\n\r", "x\u2028y\n", strings.Repeat("z", 70000) + "\r\nq"} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		var want []string
		if len(data) > 0 {
			pieces := strings.Split(string(data), "\n")
			if strings.HasSuffix(string(data), "\n") {
				pieces = pieces[:len(pieces)-1]
			}
			for _, p := range pieces {
				want = append(want, strings.TrimSuffix(p, "\r"))
			}
		}
		var got []string
		r := &chunkReader{data: data, n: int(chunk%17) + 1}
		if err := ReadLines(r, func(l []byte) { got = append(got, string(l)) }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("input %q\n got  %q\n want %q", data, got, want)
		}
	})
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(c.n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}
