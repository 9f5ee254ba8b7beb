package nodecompat

import (
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
	whatwg "github.com/nlnwa/whatwg-url/url"
	"golang.org/x/net/idna"
)

// The URL standard's parser (github.com/nlnwa/whatwg-url) behind the URL
// and URLSearchParams classes of js/url.js ("atomic:url"). A URL crosses
// as its href; parse returns the components, the JavaScript object keeps
// them.

// urlParts are the getters of a parsed URL, in this order: href, origin,
// protocol, username, password, host, hostname, port, pathname, search,
// hash.
func urlParts(u *whatwg.Url) []any {
	return []any{u.Href(false), urlOrigin(u), u.Protocol(), u.Username(), u.Password(), u.Host(), u.Hostname(), u.Port(), u.Pathname(), u.Search(), u.Hash()}
}

// urlOrigin is the ASCII serialisation of a URL's origin.
func urlOrigin(u *whatwg.Url) string {
	switch u.Scheme() {
	case "http", "https", "ws", "wss", "ftp":
		return u.Protocol() + "//" + u.Host()
	case "blob":
		if inner, err := whatwg.Parse(u.Pathname()); err == nil && (inner.Scheme() == "http" || inner.Scheme() == "https") {
			return urlOrigin(inner)
		}
	}
	return "null"
}

func invalidURL(r *goja.Runtime, input string) *goja.Object {
	e := r.NewTypeError("Invalid URL")
	_ = e.Set("code", "ERR_INVALID_URL")
	_ = e.Set("input", input)
	return e
}

// parseURL parses input against base (a string, or undefined for none).
func parseURL(input string, base goja.Value) (*whatwg.Url, bool) {
	if base == nil || goja.IsUndefined(base) {
		u, err := whatwg.Parse(input)
		return u, err == nil
	}
	b, err := whatwg.Parse(base.String())
	if err != nil {
		return nil, false
	}
	u, err := b.Parse(input)
	return u, err == nil
}

// URLNatives are the Go functions js/url.js builds URL from.
func URLNatives(r *goja.Runtime) map[string]any {
	return map[string]any{
		"parse": func(input string, base goja.Value) []any {
			u, ok := parseURL(input, base)
			if !ok {
				panic(invalidURL(r, input))
			}
			return urlParts(u)
		},
		"canParse": func(input string, base goja.Value) bool {
			_, ok := parseURL(input, base)
			return ok
		},
		// set applies a setter to href and returns the new components.
		"set": func(href, field, value string) []any {
			u, err := whatwg.Parse(href)
			if err != nil {
				panic(invalidURL(r, href))
			}
			switch field {
			case "href":
				if u, err = whatwg.Parse(value); err != nil {
					panic(invalidURL(r, value))
				}
			case "protocol":
				u.SetProtocol(value)
			case "username":
				u.SetUsername(value)
			case "password":
				u.SetPassword(value)
			case "host":
				u.SetHost(value)
			case "hostname":
				u.SetHostname(value)
			case "port":
				u.SetPort(value)
			case "pathname":
				u.SetPathname(value)
			case "search":
				u.SetSearch(value)
			case "hash":
				u.SetHash(value)
			}
			return urlParts(u)
		},
		"parseQuery": parseQuery,
		"domainToUnicode": func(d string) string {
			u, err := idna.ToUnicode(d)
			if err != nil {
				return ""
			}
			return u
		},
		"domainToASCII": func(d string) string {
			u, err := whatwg.Parse("ws://" + d)
			if err != nil {
				return ""
			}
			return u.Hostname()
		},
	}
}

// parseQuery is the application/x-www-form-urlencoded parser: the
// name/value pairs of s, flattened.
func parseQuery(s string) []string {
	var out []string
	for _, seq := range strings.Split(s, "&") {
		if seq == "" {
			continue
		}
		name, value, _ := strings.Cut(seq, "=")
		out = append(out, formDecode(name), formDecode(value))
	}
	return out
}

// formDecode turns '+' into a space and decodes percent-escapes, keeping
// a '%' that does not start one; bytes that are not UTF-8 become U+FFFD.
func formDecode(s string) string {
	if !strings.ContainsAny(s, "+%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b = append(b, ' ')
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		default:
			b = append(b, c)
		}
	}
	if utf8.Valid(b) {
		return string(b)
	}
	return string([]rune(string(b))) // U+FFFD for each invalid byte
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
