// Package filelock takes an exclusive lock on a file, shared by the steps
// that install tools into a cache (Azurite from npm, Chromium from apt) so
// that parallel test packages and runs do not race.
package filelock

import "errors"

// ErrUnsupported is Lock's error where file locks are not implemented
// (outside Unix).
var ErrUnsupported = errors.New("file locks are supported on Unix-like systems only")
