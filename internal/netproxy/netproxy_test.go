package netproxy

import (
	"net/http"
	"testing"
)

// The setting fills the variables the environment leaves unset; a set
// one wins, and NO_PROXY applies.
func TestSetKeepsTheEnvironmentsProxy(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	t.Setenv("http_proxy", "")
	t.Setenv("HTTPS_PROXY", "http://env-proxy:1")
	t.Setenv("NO_PROXY", "skip.example")
	t.Cleanup(func() { configured.Store(nil) })
	Set("http://setting-proxy:2")
	for url, want := range map[string]string{
		"http://provider.example/x":  "http://setting-proxy:2",
		"https://provider.example/x": "http://env-proxy:1",
		"https://skip.example/x":     "",
	} {
		req, _ := http.NewRequest("GET", url, nil)
		u, err := FromRequest(req)
		got := ""
		if u != nil {
			got = u.String()
		}
		if err != nil || got != want {
			t.Errorf("%s: proxy %q %v, want %q", url, got, err, want)
		}
	}
}
