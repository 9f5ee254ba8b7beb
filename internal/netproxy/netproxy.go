// Package netproxy is the proxy of the agent's HTTP clients: the
// environment's HTTP_PROXY, HTTPS_PROXY and NO_PROXY, with the httpProxy
// setting for the variables the environment leaves unset (pi 1.6's rule).
//
// It exists because net/http reads the proxy variables once, and a
// dependency's package initialisation (the MCP SDK's OAuth discovery
// transport) does so before main runs: setting the variables later does
// not reach http.ProxyFromEnvironment.
package netproxy

import (
	"net/http"
	"net/url"
	"os"
	"sync/atomic"

	"golang.org/x/net/http/httpproxy"
)

var configured atomic.Pointer[func(*url.URL) (*url.URL, error)]

// Set makes proxy the proxy for requests whose scheme's variable is not
// set in the environment (HTTP_PROXY / http_proxy, HTTPS_PROXY /
// https_proxy); NO_PROXY applies as usual. An empty proxy changes
// nothing. It also sets the unset variables for child processes.
func Set(proxy string) {
	if proxy == "" {
		return
	}
	cfg := httpproxy.FromEnvironment()
	if cfg.HTTPProxy == "" {
		cfg.HTTPProxy = proxy
		_ = os.Setenv("HTTP_PROXY", proxy)
	}
	if cfg.HTTPSProxy == "" {
		cfg.HTTPSProxy = proxy
		_ = os.Setenv("HTTPS_PROXY", proxy)
	}
	f := cfg.ProxyFunc()
	configured.Store(&f)
}

// FromRequest is the proxy of req (nil: none): an http.Transport's Proxy.
func FromRequest(req *http.Request) (*url.URL, error) {
	if f := configured.Load(); f != nil {
		return (*f)(req.URL)
	}
	return http.ProxyFromEnvironment(req)
}

// Transport is the transport of clients that would use
// http.DefaultTransport: its settings, with the proxy from FromRequest.
var Transport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = FromRequest
	return t
}()
