package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/atomic-go/atomic/internal/netproxy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is one configured server and its connection: connect, watch,
// reconnect on the next call, stop. The Manager (manager.go) holds the set.
type server struct {
	m   *Manager
	def Server

	mu        sync.Mutex
	state     string
	err       string
	sess      *mcp.ClientSession
	watched   chan struct{} // closed when watch has handled the end of sess
	proc      *stdioProc
	attempt   chan struct{} // closed when the current connection attempt ends
	stopping  bool
	reported  bool // a crash was reported (once per connection)
	tools     map[string]*Tool
	resources bool
	secrets   []string
	progress  map[string]func(*mcp.ProgressNotificationParams)
	gen       int
	cancel    context.CancelFunc // of the connection attempt
	// A list_changed flood costs one refresh in flight and one pending.
	refreshing, refreshPending bool
}

func newServer(m *Manager, def Server) *server {
	s := &server{m: m, def: def, state: StateDisconnected, tools: map[string]*Tool{}, progress: map[string]func(*mcp.ProgressNotificationParams){}}
	if !def.Config.IsEnabled() {
		s.state = StateDisabled
	}
	for _, v := range def.Config.Env {
		s.secrets = append(s.secrets, v)
	}
	for _, v := range def.Config.Headers {
		s.secrets = append(s.secrets, v)
	}
	return s
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp := s.def.Config.Exposure
	if exp == "" {
		exp = DefaultExposure
	}
	st := Status{
		Name: s.def.Name, Source: s.def.Source, Scope: s.def.Scope, Transport: s.def.Config.Transport(),
		State: s.state, Enabled: s.def.Config.IsEnabled(), Exposure: exp, ToolCount: len(s.tools), Error: s.err,
	}
	if s.proc != nil {
		st.StderrTail = s.proc.tail.String()
	}
	return st
}

// redact removes the server's configured and resolved env and header
// values from text (stderr lines, errors).
func (s *server) redact(text string) string {
	s.mu.Lock()
	secrets := s.secrets
	s.mu.Unlock()
	return redactAll(text, secrets)
}

func redactAll(text string, secrets []string) string {
	for _, v := range secrets {
		if len(v) >= 3 && strings.Contains(text, v) {
			text = strings.ReplaceAll(text, v, "***")
		}
	}
	return text
}

func (s *server) setState(state, errText string) {
	s.mu.Lock()
	changed := s.state != state || s.err != errText
	s.state, s.err = state, errText
	s.mu.Unlock()
	if changed && s.m.opts.OnChange != nil {
		s.m.opts.OnChange(s.status())
	}
}

func (s *server) hasResources() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resources && s.state == StateConnected
}

// begin starts connecting in the background.
func (s *server) begin() {
	if !s.def.Config.IsEnabled() {
		return
	}
	s.mu.Lock()
	if s.attempt != nil || s.m.shut.Load() {
		s.mu.Unlock()
		return
	}
	s.stopping = false
	done := make(chan struct{})
	s.attempt = done
	s.gen++
	gen := s.gen
	actx, acancel := context.WithCancel(context.Background())
	s.cancel = acancel
	s.mu.Unlock()
	s.setState(StateConnecting, "")
	go func() {
		defer acancel()
		err := s.connect(actx, gen)
		defer func() {
			s.mu.Lock()
			if s.attempt == done {
				s.attempt = nil
			}
			s.mu.Unlock()
			close(done) // after the state is set: waiters see the outcome
		}()
		s.mu.Lock()
		stale := s.gen != gen || s.stopping
		s.mu.Unlock()
		if stale {
			return
		}
		if err != nil {
			msg := s.redact(err.Error())
			s.m.opts.Log.Warn("mcp server failed to connect", "server", s.def.Name, "error", msg)
			s.setState(StateFailed, msg)
			return
		}
		s.setState(StateConnected, "")
		s.m.syncSharedTools()
	}()
}

// waitSettled waits for the connection attempt in progress, if any.
func (s *server) waitSettled(ctx context.Context) error {
	s.mu.Lock()
	a := s.attempt
	s.mu.Unlock()
	if a == nil {
		return nil
	}
	select {
	case <-a:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *server) timeout() time.Duration {
	return time.Duration(s.def.Config.TimeoutSeconds() * float64(time.Second))
}

// connect waits for a start slot, resolves the entry's values, starts the
// transport, initializes and lists the tools. actx is the attempt's
// (cancelled by shutdown); the server's timeout runs from the slot on.
func (s *server) connect(actx context.Context, gen int) error {
	select {
	case s.m.slots <- struct{}{}:
		defer func() { <-s.m.slots }()
	case <-actx.Done():
		return errors.New("stopped")
	}
	cfg := &s.def.Config
	env := map[string]string{}
	for k, v := range cfg.Env {
		r, err := s.m.opts.Values.Expand(v)
		if err != nil {
			return fmt.Errorf("env %s: %w", k, err)
		}
		env[k] = r
	}
	headers := map[string]string{}
	for k, v := range cfg.Headers {
		r, err := s.m.opts.Values.Expand(v)
		if err != nil {
			return fmt.Errorf("header %s: %w", k, err)
		}
		headers[k] = r
	}
	s.mu.Lock()
	for _, v := range env {
		s.secrets = append(s.secrets, v)
	}
	for _, v := range headers {
		s.secrets = append(s.secrets, v)
	}
	s.mu.Unlock()

	var transport mcp.Transport
	var proc *stdioProc
	if cfg.IsHTTP() {
		base := s.m.opts.HTTPClient
		if base == nil {
			base = http.DefaultClient
		}
		rt := base.Transport
		if rt == nil {
			rt = netproxy.Transport
		}
		transport = &mcp.StreamableClientTransport{
			Endpoint:   cfg.URL,
			HTTPClient: &http.Client{Transport: limitTransport{newHeaderTransport(rt, cfg.URL, headers)}, Timeout: base.Timeout},
			MaxRetries: 2,
			// Explicit: the SDK's streamable client does not apply
			// DefaultMaxEventSize for 0 (v1.8.0), leaving events unbounded.
			MaxEventSize: maxResponseBytes,
		}
	} else {
		t, p, err := newStdioTransport(s.def.Name, cfg, env, s.m.opts.Cwd(), s.m.opts.Log, s.redact)
		if err != nil {
			return err
		}
		transport, proc = t, p
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "atomic", Version: s.m.opts.ClientVersion}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			s.toolsChanged(gen)
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			s.onProgress(req.Params)
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			s.m.opts.Log.Debug("mcp server log", "server", s.def.Name, "level", req.Params.Level, "logger", req.Params.Logger, "data", s.redact(fmt.Sprint(req.Params.Data)))
		},
	})
	ctx, cancel := context.WithTimeout(actx, s.timeout())
	defer cancel()
	s.mu.Lock()
	if s.gen != gen || s.stopping {
		s.mu.Unlock()
		return errors.New("stopped")
	}
	s.proc = proc
	s.mu.Unlock()
	sess, err := client.Connect(ctx, transport, nil)
	if proc != nil {
		proc.started()
	}
	if err != nil {
		if proc != nil && proc.cmd.Process != nil {
			proc.stop(func() { _ = proc.cmd.Wait() })
			if ctx.Err() == nil {
				return fmt.Errorf("%v (%v)", err, proc.exitError())
			}
		}
		return describeStartError(ctx, err, s.timeout())
	}
	s.mu.Lock()
	if s.gen != gen || s.stopping {
		s.mu.Unlock()
		s.closeSession(sess, proc)
		return errors.New("stopped")
	}
	s.sess = sess
	watched := make(chan struct{})
	s.watched = watched
	s.reported = false
	init := sess.InitializeResult()
	s.resources = init != nil && init.Capabilities != nil && init.Capabilities.Resources != nil
	s.mu.Unlock()
	go func() {
		defer close(watched)
		s.watch(sess, proc, gen)
	}()
	if init != nil && init.Capabilities != nil && init.Capabilities.Tools == nil {
		return nil
	}
	_, err = s.listTools(ctx, sess, gen)
	return err
}

// watch notices a server that goes away: it is reported once and shown
// as disconnected; the next call connects again.
func (s *server) watch(sess *mcp.ClientSession, proc *stdioProc, gen int) {
	_ = sess.Wait()
	s.mu.Lock()
	if s.gen != gen || s.stopping || s.sess != sess {
		s.mu.Unlock()
		return
	}
	s.sess = nil
	report := !s.reported
	s.reported = true
	s.mu.Unlock()
	msg := "the connection was closed"
	if proc != nil {
		proc.stop(func() { _ = sess.Close() })
		<-proc.done
		msg = proc.exitError().Error()
	}
	msg = s.redact(msg)
	if report {
		s.m.opts.Log.Warn("mcp server disconnected", "server", s.def.Name, "error", msg)
	}
	s.setState(StateDisconnected, msg)
	s.m.syncSharedTools()
}

func (s *server) closeSession(sess *mcp.ClientSession, proc *stdioProc) {
	if proc != nil {
		proc.stop(func() { _ = sess.Close() })
		return
	}
	done := make(chan struct{})
	go func() { _ = sess.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(termGrace):
	}
}

// shutdown closes the connection, and ends a connection attempt in
// progress, waiting (bounded) until its process is gone; remove also
// withdraws the tools.
func (s *server) shutdown(remove bool) {
	s.mu.Lock()
	s.stopping = true
	s.gen++
	sess, proc, attempt := s.sess, s.proc, s.attempt
	s.sess = nil
	s.attempt = nil
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	s.mu.Unlock()
	if sess != nil {
		s.closeSession(sess, proc)
	}
	if attempt != nil {
		// The attempt stops its process itself (connect's failure path)
		// once its context is cancelled.
		select {
		case <-attempt:
		case <-time.After(stdinGrace + 2*termGrace + time.Second):
		}
	}
	if remove {
		s.setTools(nil)
	}
	if s.def.Config.IsEnabled() {
		s.setState(StateDisconnected, "")
	}
}

// session returns the live session, connecting first when the server is
// disconnected or failed (reconnect on the next call).
func (s *server) session(ctx context.Context) (*mcp.ClientSession, error) {
	for range 2 {
		s.mu.Lock()
		sess, a, state := s.sess, s.attempt, s.state
		s.mu.Unlock()
		if sess != nil {
			return sess, nil
		}
		if state == StateDisabled {
			return nil, fmt.Errorf("MCP server %q is disabled", s.def.Name)
		}
		if a == nil {
			s.begin()
		}
		if err := s.waitSettled(ctx); err != nil {
			return nil, err
		}
		s.mu.Lock()
		sess, errText := s.sess, s.err
		s.mu.Unlock()
		if sess != nil {
			return sess, nil
		}
		if errText != "" && a == nil {
			return nil, fmt.Errorf("MCP server %q is not connected: %s", s.def.Name, errText)
		}
	}
	return nil, fmt.Errorf("MCP server %q is not connected", s.def.Name)
}

func (s *server) onProgress(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}
	key := fmt.Sprint(p.ProgressToken)
	s.mu.Lock()
	fn := s.progress[key]
	s.mu.Unlock()
	if fn != nil {
		fn(p)
	}
}

// call runs one request with the per-request timeout, which progress
// notifications reset; cancelling ctx cancels the request (the SDK sends
// notifications/cancelled).
func (s *server) call(ctx context.Context, what string, progress func(*mcp.ProgressNotificationParams), fn func(ctx context.Context, sess *mcp.ClientSession, token string) error) error {
	sess, err := s.session(ctx)
	if err != nil {
		return err
	}
	var watched chan struct{}
	s.mu.Lock()
	if s.sess == sess {
		watched = s.watched
	}
	s.mu.Unlock()
	timeout := s.timeout()
	errTimeout := fmt.Errorf("MCP server %q: %s timed out after %s without progress", s.def.Name, what, timeout)
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(timeout, func() { cancel(errTimeout) })
	defer timer.Stop()
	token := fmt.Sprintf("atomic-%d", s.m.tokens.Add(1))
	s.mu.Lock()
	s.progress[token] = func(p *mcp.ProgressNotificationParams) {
		timer.Reset(timeout)
		if progress != nil {
			progress(p)
		}
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.progress, token)
		s.mu.Unlock()
	}()
	err = fn(cctx, sess, token)
	if err == nil {
		return nil
	}
	if cause := context.Cause(cctx); errors.Is(cause, errTimeout) {
		return errTimeout
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || strings.HasSuffix(err.Error(), ": EOF") {
		text := s.redact(s.exitText())
		// Let watch mark the server disconnected before the caller can
		// make its next call, which then connects again instead of
		// finding the dead session (bounded: watch waits for the process).
		if watched != nil {
			select {
			case <-watched:
			case <-time.After(termGrace + time.Second):
			case <-ctx.Done():
			}
		}
		return fmt.Errorf("MCP server %q disconnected during %s: %s", s.def.Name, what, text)
	}
	return fmt.Errorf("MCP server %q: %s", s.def.Name, s.redact(err.Error()))
}

func (s *server) exitText() string {
	s.mu.Lock()
	proc := s.proc
	s.mu.Unlock()
	if proc == nil {
		return "the connection was closed"
	}
	select {
	case <-proc.done:
	case <-time.After(time.Second):
	}
	return proc.exitError().Error()
}

// sortedTools returns the server's registered tools by name.
func (s *server) sortedTools() []*Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Tool, 0, len(s.tools))
	for _, t := range s.tools {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// headerTransport adds the configured headers (credentials, as a rule)
// to the requests that go to the configured URL's origin (scheme, host
// and port) only: a redirect to another origin, an HTTPS URL's redirect
// to HTTP on the same host included, is followed without them. The
// client copies the headers of the first request onto a redirect's, but
// ours are set here on a clone, never on the request the client keeps.
type headerTransport struct {
	base    http.RoundTripper
	origin  string
	headers map[string]string
}

func newHeaderTransport(base http.RoundTripper, endpoint string, headers map[string]string) headerTransport {
	u, err := url.Parse(endpoint)
	origin := "" // unparsable: never add (Validate refuses such a URL)
	if err == nil {
		origin = originOf(u)
	}
	return headerTransport{base: base, origin: origin, headers: headers}
}

// originOf is scheme://host:port with the scheme's default port made
// explicit and the host lower-cased.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 && h.origin != "" && originOf(req.URL) == h.origin {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			req.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(req)
}

// maxResponseBytes bounds one JSON answer of an HTTP server (the SDK
// reads it whole; limitTransport) and one SSE event (the transport's
// MaxEventSize). Stdio messages have the SDK's own line bound.
const maxResponseBytes = mcp.DefaultMaxEventSize

// limitTransport bounds the body of every answer that is not an event
// stream: past maxResponseBytes the read fails, so an endless body costs
// at most that much.
type limitTransport struct{ base http.RoundTripper }

func (l limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(req)
	if err != nil || resp.Body == nil || strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream") {
		return resp, err
	}
	resp.Body = &limitedBody{rc: resp.Body, left: maxResponseBytes}
	return resp, nil
}

// errResponseTooLarge is the read error of an answer past the bound.
var errResponseTooLarge = fmt.Errorf("the server's answer is larger than %d MiB", maxResponseBytes>>20)

type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errResponseTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte more tells a body of exactly the bound from a longer one
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, errResponseTooLarge
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }
