package target

import (
	"context"
	"errors"
	"strings"
)

func ShortErr(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i > 0 && len(s) > 200 {
		s = s[i+2:]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
