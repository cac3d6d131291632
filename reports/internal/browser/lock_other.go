//go:build !unix

package browser

import (
	"context"
	"errors"
)

func lockFile(ctx context.Context, path string, onWait func()) (func(), error) {
	return nil, errors.New("installing chromium is supported on Linux only")
}
