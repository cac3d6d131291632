//go:build !unix

package azurite

import (
	"context"
	"errors"
)

// lockFile is not implemented outside Unix: installing is refused, while an
// azurite from $STORMCHECK_AZURITE, PATH or an existing cache still works.
func lockFile(ctx context.Context, path string, onWait func()) (func(), error) {
	return nil, errors.New("installing azurite is supported on Unix-like systems only; set STORMCHECK_AZURITE")
}
