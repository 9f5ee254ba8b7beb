package rpcclient

import "context"

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
