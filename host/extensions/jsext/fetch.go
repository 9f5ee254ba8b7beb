package jsext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/atomic-go/atomic/internal/netproxy"
	"github.com/dop251/goja"
)

// fetch over Go's HTTP client (js/fetch.js builds fetch, Request,
// Response and Headers on it when a script first uses one of them).
// Bounded: a body of at most maxFetchBody bytes each way, fetchTimeout for
// the whole exchange, cancelled by the request's AbortSignal (a
// cancellation token) and when the script stops. With the agent offline
// every fetch is refused.

const (
	fetchTimeout = 5 * time.Minute
	maxRedirects = 20
)

// maxFetchBody bounds a request's and a response's body (a variable for
// the tests).
var maxFetchBody = 32 << 20

// errOffline is fetch's refusal when the agent runs offline.
var errOffline = errors.New("fetch failed: the agent runs offline (--offline, ATOMIC_OFFLINE or PI_OFFLINE), so extensions make no network requests")

var fetchClient = &http.Client{Transport: netproxy.Transport}

// fetchResult is what the promise of native fetch resolves to.
type fetchResult struct {
	status     int
	statusText string
	url        string
	redirected bool
	headers    []string // name, value, name, value …
	body       []byte
}

// webFetch starts one request: method, URL, headers (flattened pairs),
// the body (an ArrayBuffer or undefined), the redirect mode ("follow",
// "error", "manual") and the cancellation token of its signal (0: none).
func (s *Script) webFetch(r *goja.Runtime, method, rawURL string, headers []string, body goja.Value, redirect string, token int64) goja.Value {
	fail := func(err error) goja.Value {
		p, _, reject := r.NewPromise()
		_ = reject(fetchError(r, err))
		return r.ToValue(p)
	}
	if s.rt.offline() {
		return fail(errOffline)
	}
	var payload []byte
	if ab, ok := exportOf[goja.ArrayBuffer](body); ok {
		payload = bytes.Clone(ab.Bytes())
	}
	if len(payload) > maxFetchBody {
		return fail(fmt.Errorf("fetch failed: the request body is larger than %d MiB", maxFetchBody>>20))
	}
	ctx, done := s.tokenContext(context.Background(), token)
	return s.async(r, func() (any, error) {
		defer done()
		ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
		defer cancel()
		go func() {
			select {
			case <-s.vm.done:
				cancel()
			case <-ctx.Done():
			}
		}()
		return doFetch(ctx, method, rawURL, headers, payload, redirect)
	}, func(r *goja.Runtime, v any, err error) (goja.Value, goja.Value) {
		if err != nil {
			return nil, fetchError(r, err)
		}
		res := v.(*fetchResult)
		o := r.NewObject()
		_ = o.Set("status", res.status)
		_ = o.Set("statusText", res.statusText)
		_ = o.Set("url", res.url)
		_ = o.Set("redirected", res.redirected)
		_ = o.Set("headers", res.headers)
		_ = o.Set("body", r.NewArrayBuffer(res.body))
		return o, nil
	})
}

func doFetch(ctx context.Context, method, rawURL string, headers []string, payload []byte, redirect string) (*fetchResult, error) {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, body)
	if err != nil {
		return nil, fmt.Errorf("fetch failed: %w", err)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return nil, fmt.Errorf("fetch failed: the URL scheme %q is not supported (http and https are)", req.URL.Scheme)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if strings.EqualFold(headers[i], "host") {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Add(headers[i], headers[i+1])
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "node")
	}
	redirects := 0
	client := *fetchClient
	client.CheckRedirect = func(*http.Request, []*http.Request) error {
		switch redirect {
		case "manual":
			return http.ErrUseLastResponse
		case "error":
			return errors.New("redirect mode is set to error")
		}
		redirects++
		if redirects > maxRedirects {
			return errors.New("redirect count exceeded")
		}
		return nil
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("fetch failed: no complete answer within %s", fetchTimeout)
		}
		return nil, fmt.Errorf("fetch failed: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(maxFetchBody)+1))
	if err != nil {
		return nil, fmt.Errorf("fetch failed: reading the body: %w", err)
	}
	if len(data) > maxFetchBody {
		return nil, fmt.Errorf("fetch failed: the response body is larger than %d MiB", maxFetchBody>>20)
	}
	res := &fetchResult{
		status: resp.StatusCode, statusText: strings.TrimSpace(strings.TrimPrefix(resp.Status, fmt.Sprint(resp.StatusCode))),
		url: resp.Request.URL.String(), redirected: redirects > 0, body: data,
	}
	for name, vals := range resp.Header {
		for _, v := range vals {
			res.headers = append(res.headers, strings.ToLower(name), v)
		}
	}
	return res, nil
}

// fetchError is a rejection as Node's fetch has them: a TypeError, or an
// AbortError when the request's signal aborted it (fetch.js substitutes
// the signal's reason).
func fetchError(r *goja.Runtime, err error) goja.Value {
	if errors.Is(err, context.Canceled) {
		e := r.NewTypeError("This operation was aborted")
		_ = e.Set("name", "AbortError")
		return e
	}
	return r.NewTypeError(err.Error())
}
