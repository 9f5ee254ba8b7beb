package openai

import (
	"encoding/json"
	"testing"
)

// The fast paths of text and number give what the plain decode gives
// (encoding/json into a string or a float64, anything else empty) for
// every kind of value, as a field of a chunk (so that encoding/json has
// checked the value first, as it always does before UnmarshalJSON).
func TestTextAndNumberFastPathsMatchTheDecoder(t *testing.T) {
	values := []string{
		`"plain"`, `""`, `"with \"escape\""`, `"tab\tand\u00e9"`, `"\ud83d\ude00"`, `"é ü 日本"`,
		"\"bad \xff utf-8\"", "\"surrogate \xed\xa0\x80\"", `null`, `true`, `{"a":1}`, `["x"]`,
		`0`, `7`, `123456789012345`, `1234567890123456`, `9007199254740993`, `-3`, `-0`, `1.5`, `1e3`, `2E-2`, `"5"`,
	}
	for _, v := range values {
		var got struct {
			T text   `json:"t"`
			N number `json:"n"`
		}
		if err := json.Unmarshal([]byte(`{"t":`+v+`,"n":`+v+`}`), &got); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		var s string
		if v[0] != '"' || json.Unmarshal([]byte(v), &s) != nil {
			s = ""
		}
		var f float64
		if json.Unmarshal([]byte(v), &f) != nil {
			f = 0
		}
		if string(got.T) != s || int64(got.N) != int64(f) {
			t.Errorf("%s: text %q number %d, the decoder gives %q and %d", v, got.T, got.N, s, int64(f))
		}
	}
}
