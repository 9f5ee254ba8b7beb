package jsonw

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"unicode/utf8"
)

func TestValidUTF8(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"plain"`, `"plain"`},
		{"\"\xff\xfeX\"", `"\ufffd\ufffdX"`},
		{"\"caf\xc3\xa9\"", "\"caf\xc3\xa9\""},
		{"\"\xe2\x82\"", `"\ufffd\ufffd"`},
		{"\"\xed\xa0\x80\"", `"\ufffd\ufffd\ufffd"`}, // a UTF-16 surrogate encoded in UTF-8
		{"{\"k\":[\"\xc0\xaf\"]}", `{"k":["\ufffd\ufffd"]}`},
		{"", ""},
	} {
		if got := string(ValidUTF8([]byte(tc.in))); got != tc.want {
			t.Errorf("ValidUTF8(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// For any string: valid UTF-8 comes back byte for byte (the same slice);
// anything else comes back as UTF-8, and a JSON string stays the JSON
// string encoding/json writes for the same Go string.
func FuzzValidUTF8(f *testing.F) {
	for _, s := range []string{"", "x", "\xff\xfeX", "é", "\xe2\x82", "\U0001F600", "\"\\u00e9\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in := []byte(s)
		out := ValidUTF8(in)
		if !utf8.Valid(out) {
			t.Fatalf("not UTF-8: %q", out)
		}
		if utf8.ValidString(s) && (!bytes.Equal(out, in) || (len(in) > 0 && &out[0] != &in[0])) {
			t.Fatalf("valid input changed: %q -> %q", in, out)
		}
		// As the inside of a JSON string (encoded without checking UTF-8,
		// the way raw bytes reach the writer), the result decodes to what
		// encoding/json makes of the same bytes.
		raw := append([]byte{'"'}, append(jsonEscapeASCII(in), '"')...)
		var want, got string
		if json.Unmarshal(raw, &want) != nil {
			t.Skip()
		}
		if err := json.Unmarshal(ValidUTF8(raw), &got); err != nil || got != want {
			t.Fatalf("%q: got %q (%v), want %q", raw, got, err, want)
		}
	})
}

// jsonEscapeASCII escapes the ASCII bytes JSON strings cannot hold and
// leaves every other byte as it is.
func jsonEscapeASCII(b []byte) []byte {
	var out []byte
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		default:
			out = append(out, c)
		}
	}
	return out
}

// AppendString writes, for any Go string, a JSON string that encoding/json
// decodes to what it makes of the same string itself, with no raw line
// break (a protocol line must stay one line) and valid UTF-8.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c", "line\nbreak\r\t", "\x00\x1f\x7f", "\xff\xfe", "<a&b>", "\u2028\u2029", "é\U0001F600"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString([]byte("prefix"), s)
		if !bytes.HasPrefix(out, []byte("prefix")) {
			t.Fatalf("dst not kept: %q", out)
		}
		out = out[len("prefix"):]
		if !utf8.Valid(out) || bytes.ContainsAny(out, "\n\r") {
			t.Fatalf("%q: output %q", s, out)
		}
		var got, want string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%q: %q does not decode: %v", s, out, err)
		}
		std, _ := json.Marshal(s)
		if err := json.Unmarshal(std, &want); err != nil || got != want {
			t.Fatalf("%q: decodes to %q, encoding/json's to %q", s, got, want)
		}
	})
}

// AppendValue of any value encoding/json decodes from JSON is valid JSON
// that decodes to the same value, as encoding/json's own encoding does;
// a json.RawMessage is written compacted on one line, or as null (with an
// error from Object.Val) when it is not JSON.
func FuzzAppendValue(f *testing.F) {
	for _, s := range []string{`null`, `true`, `1.5e-7`, `1e21`, `-0`, `"x"`, `[1,"a",{"b":null}]`, `{"z":1,"a":[{}],"m":"<&>"}`, "{\n \"k\" : [ 1 ,\n2 ] }", `{"a":`, `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) == nil {
			out := AppendValue(nil, v)
			var got, want any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%q: %q does not decode: %v", data, out, err)
			}
			std, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(std, &want); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: AppendValue %q, encoding/json %q", data, out, std)
			}
		}
		var w Object
		w.Val("raw", json.RawMessage(data))
		out := w.Close()
		if !json.Valid(out) || bytes.ContainsAny(out, "\n\r") || !utf8.Valid(out) {
			t.Fatalf("%q: %q", data, out)
		}
		if json.Valid(data) != (w.Err() == nil) {
			t.Fatalf("%q: valid %v, Err %v", data, json.Valid(data), w.Err())
		}
	})
}

func TestObject(t *testing.T) {
	w := Append([]byte("x="))
	w.Str("type", "t")
	w.OptStr("skipped", "")
	w.Bool("ok", true)
	w.Int("n", -3)
	w.Val("m", map[string]any{"b": 1.0, "a": []any{"<"}})
	w.Field("f", func(b []byte) []byte { return append(b, "[]"...) })
	w.Raw("r", []byte("\"\xff\""))
	w.Extra(map[string]json.RawMessage{"z": json.RawMessage("{ \"k\" :\n1 }"), "y": json.RawMessage("2")})
	got := string(w.Close())
	want := `x={"type":"t","ok":true,"n":-3,"m":{"a":["<"],"b":1},"f":[],"r":"\ufffd","y":2,"z":{"k":1}}`
	if got != want || w.Err() != nil {
		t.Fatalf("got  %s (%v)\nwant %s", got, w.Err(), want)
	}
	var empty Object
	if got := string(empty.Close()); got != "{}" {
		t.Fatalf("empty object %q", got)
	}
	for _, bad := range []struct {
		v    any
		want string
	}{
		{math.NaN(), `{"v":null}`},
		{make(chan int), `{"v":null}`},
		{json.RawMessage("{"), `{"v":null}`},
		{map[string]any{"k": []any{math.Inf(1)}}, `{"v":{"k":[null]}}`},
	} {
		var w Object
		w.Val("v", bad.v)
		if out := string(w.Close()); out != bad.want || w.Err() == nil {
			t.Errorf("%v: %s, Err %v", bad.v, out, w.Err())
		}
	}
}
