package rpcclient

import "context"

// ExtensionStatus is one extension as get_extensions reports it (an
// atomic command).
type ExtensionStatus struct {
	Path  string `json:"path"`
	Name  string `json:"name,omitempty"`
	Scope string `json:"scope"` // user, project, cli, …
	// State is loaded, skipped, failed or disabled; Message says why.
	State    string   `json:"state"`
	Message  string   `json:"message,omitempty"`
	Events   []string `json:"events,omitempty"`
	Commands []string `json:"commands,omitempty"`
	Tools    []string `json:"tools,omitempty"`
}

// Extensions is the answer to get_extensions.
type Extensions struct {
	Extensions     []ExtensionStatus `json:"extensions"`
	ProjectTrusted bool              `json:"projectTrusted"`
}

// GetExtensions lists every extension found and what became of it (an
// atomic command; other agents answer "Unknown command").
func (c *Client) GetExtensions(ctx context.Context) (*Extensions, error) {
	var e Extensions
	if err := c.do(ctx, cmd{"type": "get_extensions"}, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// TrustProject records the working directory's project as trusted and
// loads its extensions; it returns how many were loaded (an atomic
// command).
func (c *Client) TrustProject(ctx context.Context) (loaded int, err error) {
	var out struct {
		Loaded int `json:"loaded"`
	}
	err = c.do(ctx, cmd{"type": "trust_project"}, &out)
	return out.Loaded, err
}
