package toolargs

import (
	"net/mail"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
)

// formatChecks are the string formats that fail a value, as pi checks
// them (a format not named here is an annotation).
var formatChecks = map[string]func(string) bool{
	"date":      func(s string) bool { _, err := time.Parse("2006-01-02", s); return err == nil },
	"date-time": isDateTime,
	"time":      isTime,
	"email":     isEmail,
	"idn-email": isEmail,
	"hostname":  isHostname,
	"ipv4":      func(s string) bool { a, err := netip.ParseAddr(s); return err == nil && a.Is4() },
	"ipv6":      func(s string) bool { a, err := netip.ParseAddr(s); return err == nil && a.Is6() },
	"uri":       isURI,
	"url":       isURI,
	"iri":       isURI,
	"uri-reference": func(s string) bool {
		_, err := url.Parse(s)
		return err == nil && !strings.ContainsAny(s, " \\")
	},
	"uuid":         lazyRegexp(`^(?i)(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$`).match,
	"regex":        func(s string) bool { _, err := regexp.Compile(s); return err == nil },
	"json-pointer": lazyRegexp(`^(?:/(?:[^~/]|~0|~1)*)*$`).match,
	"duration":     lazyRegexp(`^P(?:\d+W|(?:\d+Y)?(?:\d+M)?(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)?)$`).match,
}

func isDateTime(s string) bool {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02t15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z07:00"} {
		if _, err := time.Parse(layout, strings.Replace(s, "z", "Z", 1)); err == nil {
			return true
		}
	}
	return false
}

var timeRe = lazyRegexp(`^(?i)(\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:z|[+-]\d\d:?\d\d)$`)

func isTime(s string) bool {
	m := timeRe.FindStringSubmatch(s)
	return m != nil && m[1] <= "23" && m[2] <= "59" && m[3] <= "60"
}

func isEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == ""
}

var labelRe = lazyRegexp(`^(?i)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)

func isHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, l := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		if !labelRe.MatchString(l) {
			return false
		}
	}
	return true
}

var schemeRe = lazyRegexp(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

func isURI(s string) bool {
	if !schemeRe.MatchString(s) || strings.ContainsAny(s, " \\<>\"{}|^`") {
		return false
	}
	_, err := url.Parse(s)
	return err == nil
}

// lazy is a regular expression compiled on first use (package
// initialisation stays cheap: test/arch checks it).
type lazy struct {
	once sync.Once
	src  string
	re   *regexp.Regexp
}

func lazyRegexp(src string) *lazy { return &lazy{src: src} }

func (l *lazy) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

func (l *lazy) match(s string) bool                  { return l.get().MatchString(s) }
func (l *lazy) MatchString(s string) bool            { return l.get().MatchString(s) }
func (l *lazy) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }
