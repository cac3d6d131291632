//go:build !unix

package filelock

import "context"

// Lock is not implemented outside Unix: installing a tool is refused there.
func Lock(ctx context.Context, path string, onWait func()) (func(), error) {
	return nil, ErrUnsupported
}
