package tools

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// globToRegexp translates a glob into an anchored regular expression over
// slash-separated paths:
//
//   - "*" matches any run of characters except "/", "?" one such character;
//   - "**" forming a whole path segment matches any number of segments
//     ("**/x" also matches "x", "a/**" everything below "a", "a/**/b" also
//     "a/b"); elsewhere it acts like "*";
//   - "[abc]", "[a-z]", "[!x]" / "[^x]" are character classes;
//   - "{a,b}" alternatives when braces is true;
//   - a backslash makes the next character literal.
func globToRegexp(pat string, braces bool) string {
	var b strings.Builder
	b.WriteString("^")
	braces = braces && bracesBalanced(pat)
	depth := 0
	for i := 0; i < len(pat); {
		c := pat[i]
		switch {
		case c == '*':
			j := i + 1
			for j < len(pat) && pat[j] == '*' {
				j++
			}
			if j-i >= 2 {
				segStart := i == 0 || pat[i-1] == '/' || (braces && depth > 0 && (pat[i-1] == '{' || pat[i-1] == ','))
				switch {
				case segStart && j == len(pat):
					b.WriteString(".*")
					i = j
					continue
				case segStart && pat[j] == '/':
					b.WriteString("(?:.*/)?")
					i = j + 1
					continue
				}
			}
			b.WriteString("[^/]*")
			i = j
			continue
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			if cls, n := globClass(pat[i:]); n > 0 {
				b.WriteString(cls)
				i += n
				continue
			}
			b.WriteString(`\[`)
		case c == '\\' && i+1 < len(pat):
			_, size := utf8.DecodeRuneInString(pat[i+1:])
			b.WriteString(regexp.QuoteMeta(pat[i+1 : i+1+size]))
			i += 1 + size
			continue
		case braces && c == '{':
			b.WriteString("(?:")
			depth++
		case braces && c == ',' && depth > 0:
			b.WriteString("|")
		case braces && c == '}' && depth > 0:
			b.WriteString(")")
			depth--
		default:
			_, size := utf8.DecodeRuneInString(pat[i:])
			b.WriteString(regexp.QuoteMeta(pat[i : i+size]))
			i += size
			continue
		}
		i++
	}
	b.WriteString("$")
	return b.String()
}

// globClass translates a bracket expression at the start of s and returns
// it with the number of bytes consumed, or n == 0 when s does not start a
// complete class.
func globClass(s string) (string, int) {
	var b strings.Builder
	b.WriteString("[")
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		b.WriteString("^")
		i++
	}
	first := true
	for i < len(s) {
		c := s[i]
		if c == ']' && !first {
			b.WriteString("]")
			return b.String(), i + 1
		}
		first = false
		if c == '\\' && i+1 < len(s) {
			i++
			c = s[i]
		}
		switch c {
		case '\\', '[', ']', '^':
			b.WriteByte('\\')
			b.WriteByte(c)
			i++
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return "", 0
}

func bracesBalanced(pat string) bool {
	depth := 0
	for i := 0; i < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// glob is a compiled glob pattern for find and grep. A pattern without a
// "/" is matched against the base name of each path, one with a "/" against
// the whole relative path. With smartCase, a pattern with no upper-case
// letters matches case-insensitively.
type glob struct {
	re       *regexp.Regexp
	basename bool
}

func compileGlob(pattern string, smartCase bool) (*glob, error) {
	p := strings.TrimPrefix(pattern, "./")
	expr := globToRegexp(p, true)
	if smartCase && !strings.ContainsFunc(p, unicode.IsUpper) {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	return &glob{re: re, basename: !strings.Contains(p, "/")}, nil
}

// match reports whether the slash-separated relative path rel matches.
func (g *glob) match(rel string) bool {
	if g.basename {
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			rel = rel[i+1:]
		}
	}
	return g.re.MatchString(rel)
}
