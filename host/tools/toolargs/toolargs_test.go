package toolargs

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

type recorded struct {
	Tool  string          `json:"tool"`
	Args  string          `json:"args"`
	Value json.RawMessage `json:"value"`
	Error string          `json:"error"`
}

// Every case of testdata/cases.json coerces to the value pi 1.6 returned,
// or fails with pi 1.6's message, byte for byte (testdata/pi16.json,
// written by testdata/record.mjs from pi-ai 1.6.0's validateToolArguments).
func TestAsPi16(t *testing.T) {
	var cases struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
	}
	readJSON(t, "testdata/cases.json", &cases)
	var want []recorded
	readJSON(t, "testdata/pi16.json", &want)
	if len(want) < 80 {
		t.Fatalf("only %d recorded cases", len(want))
	}
	schemas := map[string]*Schema{}
	for name, raw := range cases.Schemas {
		s, err := Compile(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		schemas[name] = s
	}
	for _, c := range want {
		args, err := Decode([]byte(c.Args))
		if err != nil {
			t.Fatalf("%s %s: %v", c.Tool, c.Args, err)
		}
		got, problems := schemas[c.Tool].Parse(args)
		if c.Error != "" {
			if problems == nil {
				t.Errorf("%s %s: accepted as %s; pi 1.6:\n%s", c.Tool, c.Args, Stringify(got, ""), c.Error)
			} else if msg := FormatError(c.Tool, problems, args); msg != c.Error {
				t.Errorf("%s %s:\n got %q\nwant %q", c.Tool, c.Args, msg, c.Error)
			}
			continue
		}
		wantValue, err := Decode(c.Value)
		if err != nil {
			t.Fatal(err)
		}
		if problems != nil {
			t.Errorf("%s %s: refused:\n%s\npi 1.6 accepted it as %s", c.Tool, c.Args, FormatError(c.Tool, problems, args), Stringify(wantValue, ""))
		} else if g, w := Stringify(got, ""), Stringify(wantValue, ""); g != w {
			t.Errorf("%s %s: coerced to %s, pi 1.6 to %s", c.Tool, c.Args, g, w)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestCompileRefusesWhatIsNoSchema(t *testing.T) {
	for _, bad := range []string{`[1]`, `"object"`, `{"type":`, `{"properties":5}`} {
		if _, err := Compile([]byte(bad)); err == nil {
			t.Errorf("%s compiled", bad)
		}
	}
	// A dangling reference fails only the values at its place.
	s, err := Compile([]byte(`{"type":"object","properties":{"a":{"$ref":"#/nowhere"},"b":{"type":"integer"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, p := s.Parse(mustDecode(t, `{"b":"3"}`)); p != nil {
		t.Fatalf("refused: %v", p)
	}
	if _, p := s.Parse(mustDecode(t, `{"a":1}`)); len(p) != 1 || p[0].Message != "unresolved reference #/nowhere" {
		t.Fatalf("problems %v", p)
	}
}

// JavaScript's number formatting, which the messages and the coercion to
// strings use.
func TestJSNumber(t *testing.T) {
	for f, want := range map[float64]string{0: "0", 1: "1", -2.5: "-2.5", 1e21: "1e+21", 1e20: "100000000000000000000",
		0.000001: "0.000001", 1e-7: "1e-7", 123456789012345680000: "123456789012345680000", 1.5e300: "1.5e+300", 0.30000000000000004: "0.30000000000000004"} {
		if got := jsNumber(f); got != want {
			t.Errorf("%v: %s, want %s", f, got, want)
		}
	}
}

func mustDecode(t *testing.T, s string) any {
	t.Helper()
	v, err := Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Any arguments against any of the recorded schemas: no panic, and what
// Parse accepts is valid for jsonschema-go and parses again unchanged.
func FuzzParse(f *testing.F) {
	var cases struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
	}
	b, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		f.Fatal(err)
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		f.Fatal(err)
	}
	var schemas []*Schema
	for _, raw := range cases.Schemas {
		s, err := Compile(raw)
		if err != nil {
			f.Fatal(err)
		}
		schemas = append(schemas, s)
	}
	for _, seed := range []string{`{}`, `{"path":42}`, `{"edits":{"oldText":"x"}}`, `{"a":[[[null]]]}`, `{"kind":"2","tuple":"a"}`} {
		f.Add(seed, uint8(0))
	}
	f.Fuzz(func(t *testing.T, args string, which uint8) {
		v, err := Decode([]byte(args))
		if err != nil {
			return
		}
		s := schemas[int(which)%len(schemas)]
		got, problems := s.Parse(v)
		if problems != nil {
			if msg := FormatError("t", problems, v); msg == "" {
				t.Fatal("empty message")
			}
			return
		}
		again, problems := s.Parse(got)
		if problems != nil || Stringify(again, "") != Stringify(got, "") {
			t.Fatalf("%s coerced to %s, which parses to %s %v", args, Stringify(got, ""), Stringify(again, ""), problems)
		}
	})
}

// Arguments nested deeper than MaxDepth are refused at once: the time to
// check them would grow faster than their size.
func TestDeepArgumentsAreRefused(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","$defs":{"n":{"anyOf":[{"type":"string"},{"type":"array","items":{"$ref":"#/$defs/n"}}]}},"properties":{"t":{"$ref":"#/$defs/n"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	nested := func(d int) any {
		return mustDecode(t, `{"t":`+strings.Repeat("[", d)+`"x"`+strings.Repeat("]", d)+`}`)
	}
	if _, p := s.Parse(nested(MaxDepth - 1)); p != nil {
		t.Fatalf("refused at %d levels: %v", MaxDepth, p)
	}
	if _, p := s.Parse(nested(900)); len(p) != 1 || p[0].Message != "nested deeper than 64 levels" {
		t.Fatalf("problems %v", p)
	}
}
