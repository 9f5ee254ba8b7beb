package resources

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		in     string
		want   []string
		isOpen bool
	}{
		{"", nil, false},
		{"   \t ", nil, false},
		{"a b  c", []string{"a", "b", "c"}, false},
		{"\ta\tb ", []string{"a", "b"}, false},
		{`"a b" c`, []string{"a b", "c"}, false},
		{`'a b' "c d"`, []string{"a b", "c d"}, false},
		// Quotes open only at the start of an argument (pi 1.6).
		{`doesn't work`, []string{"doesn't", "work"}, false},
		{`it's Bob's`, []string{"it's", "Bob's"}, false},
		{`x"y z"w`, []string{`x"y`, `z"w`}, false},
		{`"it's" 'say "hi"'`, []string{"it's", `say "hi"`}, false},
		{`""`, []string{""}, false},
		{`a "" b`, []string{"a", "", "b"}, false},
		{`"ab"cd`, []string{"abcd"}, false},
		// An unclosed quote is text; the rest is split as usual.
		{`a "b c`, []string{"a", `"b`, "c"}, true},
		{`'unterminated  to the end  `, []string{"'unterminated", "to", "the", "end"}, true},
		{`a "`, []string{"a", `"`}, true},
		{`'a "b c" d`, []string{"'a", "b c", "d"}, true},
		// Newlines split, as JavaScript's \s.
		{"line1\nline2 x", []string{"line1", "line2", "x"}, false},
		{"a\u00a0b\u3000c", []string{"a", "b", "c"}, false},
		// A backslash before the quote character inside quotes.
		{`back\slash "no\"escape"`, []string{`back\slash`, `no"escape`}, false},
		{`"say \"hi\""`, []string{`say "hi"`}, false},
		{`"a\" b`, []string{`"a\"`, "b"}, true},
		{`'it\'s'`, []string{"it's"}, false},
		{`"a\\" b`, []string{`"a\\"`, "b"}, true}, // the last " follows a backslash, as in pi
	}
	for _, tt := range tests {
		got, open := ParseArgs(tt.in)
		if !reflect.DeepEqual(got, tt.want) || open != tt.isOpen {
			t.Errorf("ParseArgs(%q) = %q, open=%v; want %q, open=%v", tt.in, got, open, tt.want, tt.isOpen)
		}
	}
}

func TestSubstituteArgs(t *testing.T) {
	args := []string{"one", "two", "three", "four"}
	tests := []struct {
		name string
		tmpl string
		args []string
		want string
	}{
		{"no placeholders", "plain text", args, "plain text"},
		{"positional", "$1 and $2", args, "one and two"},
		{"missing positional is empty", "[$5][$9]", args, "[][]"},
		{"zero is empty", "[$0]", args, "[]"},
		{"multi-digit", "$10|$1", []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}, "j|a"},
		{"all with $@", "all: $@", args, "all: one two three four"},
		{"all with $ARGUMENTS", "all: $ARGUMENTS.", args, "all: one two three four."},
		{"no args", "[$@][$ARGUMENTS][$1]", nil, "[][][]"},
		{"slice from", "${@:2}", args, "two three four"},
		{"slice from zero is from one", "${@:0}", args, "one two three four"},
		{"slice from past the end", "[${@:9}]", args, "[]"},
		{"slice with length", "${@:2:2}", args, "two three"},
		{"slice length past end", "${@:3:10}", args, "three four"},
		{"slice length zero", "[${@:2:0}]", args, "[]"},
		{"slice huge length", "${@:2:99999999999999999999999}", args, "two three four"},
		{"slice huge start", "[${@:99999999999999999999999}]", args, "[]"},
		{"default used", "${5:-fallback}", args, "fallback"},
		{"default not used", "${1:-fallback}", args, "one"},
		{"default for empty arg", "${1:-none}", []string{""}, "none"},
		{"default for all", "${@:-everything}", nil, "everything"},
		{"default for all not used", "${@:-everything}", args, "one two three four"},
		{"default for ARGUMENTS", "${ARGUMENTS:-nothing given}", nil, "nothing given"},
		{"default may hold $", "${2:-$1 costs $5}", []string{"x"}, "$1 costs $5"},
		{"empty default", "[${3:-}]", nil, "[]"},
		{"too long default stays text", "${1:-" + strings.Repeat("d", 1025) + "}", nil, "${1:-" + strings.Repeat("d", 1025) + "}"},
		{"longest default", "${1:-" + strings.Repeat("d", 1024) + "}", nil, strings.Repeat("d", 1024)},
		{"no re-substitution", "$1/$2", []string{"$2", "${@:1}"}, "$2/${@:1}"},
		{"argument holding $@", "<$@>", []string{"$@", "$1"}, "<$@ $1>"},
		{"lone dollar", "costs $ and $x and ${y}", args, "costs $ and $x and ${y}"},
		{"unclosed brace", "${@:2", args, "${@:2"},
		{"adjacent", "$1$2$@", []string{"a", "b"}, "aba b"},
		{"unicode around", "«$1»", []string{"ü"}, "«ü»"},
	}
	for _, tt := range tests {
		if got := SubstituteArgs(tt.tmpl, tt.args); got != tt.want {
			t.Errorf("%s: SubstituteArgs(%q, %q) = %q; want %q", tt.name, tt.tmpl, tt.args, got, tt.want)
		}
	}
}

// FuzzSubstituteArgs checks that substitution never panics, leaves text
// without "$" alone, and is a single pass: arguments are inserted
// verbatim, whatever they contain.
func FuzzSubstituteArgs(f *testing.F) {
	f.Add("$1 ${@:2} ${3:-x}", `a "b c" $1`)
	f.Add("${@:0:0}$@$ARGUMENTS", "'x")
	f.Add("${9999999999999999999:-d}${@:1:99999999999999999999}", "")
	f.Add("plain", "$@ ${@:1}")
	f.Fuzz(func(t *testing.T, tmpl, argText string) {
		args, _ := ParseArgs(argText)
		out := SubstituteArgs(tmpl, args)
		if !strings.Contains(tmpl, "$") && out != tmpl {
			t.Fatalf("text without placeholders changed: %q -> %q", tmpl, out)
		}
		if len(args) > 0 {
			if got := SubstituteArgs("$1", args); got != args[0] {
				t.Fatalf("$1 = %q, want the first argument %q", got, args[0])
			}
			if got := SubstituteArgs("[$@]", args); got != "["+strings.Join(args, " ")+"]" {
				t.Fatalf("$@ = %q, want the arguments joined", got)
			}
		}
		// Splitting never loses non-blank, non-quote characters.
		strip := func(s string) string {
			var b []byte
			for i := 0; i < len(s); {
				r, size := utf8.DecodeRuneInString(s[i:])
				if c := s[i]; c != '"' && c != '\'' && c != '\\' && (size == 1 && r == utf8.RuneError || !isArgSpace(r)) {
					b = append(b, s[i:i+size]...)
				}
				i += size
			}
			return string(b)
		}
		// Each argument on its own: joined, bytes of two could read as one
		// character.
		var kept strings.Builder
		for _, a := range args {
			kept.WriteString(strip(a))
		}
		if kept.String() != strip(argText) {
			t.Fatalf("ParseArgs(%q) = %q lost characters", argText, args)
		}
	})
}
