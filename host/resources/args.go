package resources

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// ParseArgs splits the arguments of a slash command as pi 1.6 does: on
// whitespace (newlines included); a single or double quote groups words
// into one argument only where it opens an argument, so an apostrophe
// inside a word stays text (/t doesn't work gives "doesn't", "work");
// inside quotes a backslash before the quote character gives the
// character; "" is an empty argument. A quote that is never closed is
// text, and the rest is split as usual (unterminated reports that).
//
// Whether a quote closes is known before it is opened (the last quote
// character of its kind not after a backslash), so the text is read
// once: pi's re-reading after an unclosed quote is quadratic.
func ParseArgs(s string) (args []string, unterminated bool) {
	lastClose := map[byte]int{'"': -1, '\'': -1}
	for m := 0; m < len(s); m++ {
		if c := s[m]; (c == '"' || c == '\'') && (m == 0 || s[m-1] != '\\') {
			lastClose[c] = m
		}
	}
	var cur strings.Builder
	inArg := false
	var quote byte
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case quote != 0:
			switch {
			case c == '\\' && i+1 < len(s) && s[i+1] == quote:
				cur.WriteByte(quote)
				i += 2
			case c == quote:
				quote = 0
				i++
			default:
				cur.WriteByte(c) // bytes, not runes: invalid UTF-8 is kept as it is
				i++
			}
			continue
		case (c == '"' || c == '\'') && !inArg:
			inArg = true
			if lastClose[c] > i {
				quote = c
			} else {
				cur.WriteByte(c)
				unterminated = true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if size == 1 && r == utf8.RuneError {
			r = 0 // an invalid byte is text
		}
		if isArgSpace(r) {
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		} else {
			cur.WriteString(s[i : i+size])
			inArg = true
		}
		i += size
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args, unterminated
}

// isArgSpace is JavaScript's \s, which pi splits on.
func isArgSpace(c rune) bool {
	return unicode.IsSpace(c) || c == '\ufeff'
}

// maxDefaultLen bounds the default text of ${N:-default}.
const maxDefaultLen = 1024

// placeholder matches every placeholder form in one expression, so that a
// template is substituted in a single pass: text that comes from an
// argument is never looked at again.
//
//	${N:-default} ${@:-default} ${ARGUMENTS:-default}  (groups 1, 2)
//	${@:N} ${@:N:L}                                      (groups 3, 4)
//	$N $@ $ARGUMENTS                                     (group 5)
var placeholder = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([0-9]+|ARGUMENTS|@):-([^}]*)\}|\$\{@:([0-9]+)(?::([0-9]+))?\}|\$(ARGUMENTS|@|[0-9]+)`)
})

// SubstituteArgs fills a template's placeholders from args:
//
//   - $1, $2, …: one argument (empty when missing);
//   - $@ and $ARGUMENTS: all arguments joined by single spaces;
//   - ${@:N}: the arguments from the N-th on (N counts from 1; 0 means 1);
//   - ${@:N:L}: L arguments from the N-th;
//   - ${N:-default}, ${@:-default}, ${ARGUMENTS:-default}: the value, or
//     default when the value is empty (default is taken literally; one
//     longer than 1024 bytes makes the whole form plain text).
//
// Substitution is one pass over the template: an argument containing "$1"
// stays "$1".
func SubstituteArgs(tmpl string, args []string) string {
	if !strings.Contains(tmpl, "$") {
		return tmpl
	}
	all := strings.Join(args, " ")
	positional := func(num string) string {
		n, err := strconv.Atoi(num)
		if err != nil || n < 1 || n > len(args) {
			return ""
		}
		return args[n-1]
	}
	var out strings.Builder
	last := 0
	for _, m := range placeholder().FindAllStringSubmatchIndex(tmpl, -1) {
		out.WriteString(tmpl[last:m[0]])
		last = m[1]
		group := func(n int) string {
			if m[2*n] < 0 {
				return ""
			}
			return tmpl[m[2*n]:m[2*n+1]]
		}
		switch {
		case m[2] >= 0 && m[5]-m[4] > maxDefaultLen: // default too long: not a placeholder
			out.WriteString(tmpl[m[0]:m[1]])
		case m[2] >= 0: // a value with a default
			val := all
			if name := group(1); name != "@" && name != "ARGUMENTS" {
				val = positional(name)
			}
			if val == "" {
				val = group(2)
			}
			out.WriteString(val)
		case m[6] >= 0: // a slice
			out.WriteString(slice(args, group(3), group(4)))
		case group(5) == "@" || group(5) == "ARGUMENTS":
			out.WriteString(all)
		default:
			out.WriteString(positional(group(5)))
		}
	}
	out.WriteString(tmpl[last:])
	return out.String()
}

// slice returns the arguments ${@:start:length} selects, joined by spaces.
func slice(args []string, start, length string) string {
	from, err := strconv.Atoi(start)
	if err != nil || from > len(args) {
		return ""
	}
	from = max(from, 1) - 1
	to := len(args)
	if length != "" {
		l, err := strconv.Atoi(length)
		if err == nil && l < to-from {
			to = from + l
		}
	}
	return strings.Join(args[from:to], " ")
}
