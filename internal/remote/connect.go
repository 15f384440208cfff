package remote

import (
	"context"
	"os"
)

// Connect dials spec and picks the tuneloop binary for the host's
// architecture: self ("" = this executable) or a sibling built for it.
func Connect(ctx context.Context, spec string, o Options, self string) (*Client, string, error) {
	c, err := Dial(ctx, spec, o)
	if err != nil {
		return nil, "", err
	}
	arch, err := c.Arch()
	if err != nil {
		c.Close()
		return nil, "", err
	}
	if self == "" {
		if self, err = os.Executable(); err != nil {
			c.Close()
			return nil, "", err
		}
	}
	bin, err := BinaryFor(arch, self)
	if err != nil {
		c.Close()
		return nil, "", err
	}
	return c, bin, nil
}
