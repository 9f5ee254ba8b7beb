package jsonscan

import (
	"encoding/json"
	"testing"
)

func FuzzUnquoteAndValid(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\nb\"c\\d\/e\u00e9\ud83d\ude00"`, `"\ud800x"`, `"\udc00\ud800"`, "\"\xff\xfe\"", `"\u12"`, `[1,"a",{"b":[]}]`, `{"a":1,"a":2}`, `"é"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if Valid(b) != json.Valid(b) {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", b, Valid(b), json.Valid(b))
		}
		var want string
		werr := json.Unmarshal(b, &want)
		s := Scanner{B: b}
		s.WS()
		start := s.I
		if s.I < len(b) && b[s.I] == '"' {
			s.I++
			if _, ok := s.StringBody(); ok {
				got, ok := Unquote(b[start:s.I])
				rest := Scanner{B: b, I: s.I}
				rest.WS()
				if rest.I == len(b) {
					if !ok || werr != nil || got != want {
						t.Fatalf("Unquote(%q) = %q %v; encoding/json %q %v", b, got, ok, want, werr)
					}
				}
			}
		}
		var arr []json.RawMessage
		aerr := json.Unmarshal(b, &arr)
		n := 0
		ok := Elements(b, func([]byte) bool { n++; return true })
		if ok != (aerr == nil && arr != nil) || (ok && n != len(arr)) {
			t.Fatalf("Elements(%q) = %v,%d; encoding/json %v,%d", b, ok, n, aerr, len(arr))
		}
		var obj map[string]json.RawMessage
		oerr := json.Unmarshal(b, &obj)
		keys := map[string]bool{}
		ok = Fields(b, func(k, v []byte) bool { keys[string(k)] = true; return Valid(v) })
		if ok != (oerr == nil && obj != nil) || (ok && len(keys) != len(obj)) {
			t.Fatalf("Fields(%q) = %v,%d; encoding/json %v,%d", b, ok, len(keys), oerr, len(obj))
		}
	})
}
