// Package google implements the "google-generative-ai" API (Gemini) over
// the official SDK (google.golang.org/genai): streamed text and thought
// summaries, function calls with their thought signatures, images, and
// usage. The base URL comes from the model, so tests can point it at a
// local server.
package google

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"google.golang.org/genai"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/netproxy"
)

// API is the API name this package implements.
const API = llm.APIGoogleGenerativeAI

// DefaultBaseURL is used when a model has none.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/v1beta"

const generatedIDPrefix = "gemini_call_"

// Provider streams from the Gemini API.
type Provider struct {
	HTTPClient *http.Client // nil: llm.HTTPClient
}

// New returns the provider.
func New() *Provider { return &Provider{} }

// splitBase separates an API version suffix ("/v1beta") from a base URL,
// since the SDK adds the version itself.
func splitBase(base string) (root, version string) {
	base = strings.TrimRight(base, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	i := strings.LastIndex(base, "/")
	if i > len("https://") && strings.HasPrefix(base[i+1:], "v1") {
		return base[:i+1], base[i+1:]
	}
	return base + "/", ""
}

// recorder wraps a transport to remember the Retry-After of the last
// response (the SDK's errors do not carry headers) and to drop the key
// header when the request has no key of its own.
type recorder struct {
	next   http.RoundTripper
	noKey  bool
	mu     sync.Mutex
	status int
	retry  float64
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if r.noKey {
		req = req.Clone(req.Context())
		req.Header.Del("x-goog-api-key")
	}
	resp, err := r.next.RoundTrip(req)
	if resp != nil {
		r.mu.Lock()
		r.status = resp.StatusCode
		r.retry = llm.ParseRetryAfter(resp.Header.Get)
		r.mu.Unlock()
	}
	return resp, err
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request, b *llm.Builder) error {
	hc := llm.HookedClient(p.HTTPClient, req)
	next := hc.Transport
	if next == nil {
		next = netproxy.Transport
	}
	rec := &recorder{next: next, noKey: req.APIKey == ""}
	key := req.APIKey
	if key == "" {
		key = "unused" // the SDK insists on one; the recorder strips it
	}
	root, version := splitBase(req.Model.BaseURL)
	headers := http.Header{}
	for k, v := range req.Headers {
		headers.Set(k, v)
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey: key, Backend: genai.BackendGeminiAPI,
		HTTPClient:  &http.Client{Transport: rec, CheckRedirect: hc.CheckRedirect, Jar: hc.Jar},
		HTTPOptions: genai.HTTPOptions{BaseURL: root, APIVersion: version, Headers: headers},
	})
	if err != nil {
		return llm.RedactError(fmt.Errorf("gemini client: %w", err), req.APIKey)
	}
	err = consume(client.Models.GenerateContentStream(ctx, req.Model.ID, convertContents(req), buildConfig(req)), b)
	if err != nil {
		err = convertError(err, rec)
	}
	return llm.RedactError(err, secretsOf(req)...)
}

func secretsOf(req *llm.Request) []string {
	out := []string{req.APIKey}
	for _, v := range req.Headers {
		out = append(out, v)
	}
	return out
}

func convertError(err error, rec *recorder) error {
	var ae genai.APIError
	if errors.As(err, &ae) {
		msg := ae.Message
		if ae.Status != "" && !strings.Contains(msg, ae.Status) {
			msg = ae.Status + ": " + msg
		}
		status := ae.Code
		rec.mu.Lock()
		if status == 0 {
			status = rec.status
		}
		out := &llm.APIError{Status: status, Message: msg, RetryAfter: rec.retry}
		rec.mu.Unlock()
		if status >= 200 && status < 300 {
			out.Status = 0
		}
		return out
	}
	return llm.TransportError(err)
}

type seq = func(yield func(*genai.GenerateContentResponse, error) bool)

// consume reads the response chunks into the builder. Each part is a whole
// function call or a piece of text/thought; consecutive pieces of the same
// kind extend the open block.
func consume(stream seq, b *llm.Builder) error {
	open, kind := -1, ""
	closeOpen := func() {
		if open >= 0 {
			b.End(open)
			open, kind = -1, ""
		}
	}
	finished := false
	idSet := false
	calls := 0
	var streamErr error
	stream(func(resp *genai.GenerateContentResponse, err error) bool {
		if err != nil {
			streamErr = err
			return false
		}
		if resp == nil {
			return true
		}
		if resp.ResponseID != "" && !idSet {
			b.SetResponseID(resp.ResponseID)
			idSet = true
		}
		if u := resp.UsageMetadata; u != nil {
			cached := int(u.CachedContentTokenCount)
			b.SetUsage(llm.Usage{
				Input: int(u.PromptTokenCount) - cached, CacheRead: cached,
				Output: int(u.CandidatesTokenCount) + int(u.ThoughtsTokenCount),
			})
		}
		if len(resp.Candidates) == 0 {
			return true
		}
		cand := resp.Candidates[0]
		if cand.Content != nil {
			for _, part := range cand.Content.Parts {
				switch {
				case part.FunctionCall != nil:
					closeOpen()
					fc := part.FunctionCall
					calls++
					id := fc.ID
					if id == "" {
						id = fmt.Sprintf("%s%d", generatedIDPrefix, calls)
					}
					idx := b.StartToolCall(id, fc.Name)
					args, _ := json.Marshal(fc.Args)
					if fc.Args == nil {
						args = []byte("{}")
					}
					b.Delta(idx, string(args))
					if len(part.ThoughtSignature) > 0 {
						b.SetSignature(idx, base64.StdEncoding.EncodeToString(part.ThoughtSignature))
					}
					b.End(idx)
				case part.Text != "" || len(part.ThoughtSignature) > 0:
					want := "text"
					if part.Thought {
						want = "thinking"
					}
					if kind != want {
						closeOpen()
						if want == "thinking" {
							open = b.StartThinking()
						} else {
							open = b.StartText()
						}
						kind = want
					}
					b.Delta(open, part.Text)
					if len(part.ThoughtSignature) > 0 {
						b.SetSignature(open, base64.StdEncoding.EncodeToString(part.ThoughtSignature))
					}
				}
			}
		}
		if cand.FinishReason != "" && cand.FinishReason != genai.FinishReasonUnspecified {
			finished = true
			switch cand.FinishReason {
			case genai.FinishReasonStop:
				b.SetStopReason(llm.StopStop)
			case genai.FinishReasonMaxTokens:
				b.SetStopReason(llm.StopLength)
			default:
				msg := string(cand.FinishReason)
				if cand.FinishMessage != "" {
					msg += ": " + cand.FinishMessage
				}
				streamErr = &llm.APIError{Message: "The model stopped: " + msg, Refused: refusedBy(cand.FinishReason)}
				return false
			}
		}
		return true
	})
	if streamErr != nil {
		return streamErr
	}
	if !finished {
		return llm.StreamCut()
	}
	closeOpen()
	return nil
}

// refusedBy reports whether a finish reason is a refusal (a safety or
// policy block rather than a failure).
func refusedBy(r genai.FinishReason) bool {
	switch r {
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonImageSafety:
		return true
	}
	return false
}
