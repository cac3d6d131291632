package text

import "strings"

// Wrapped is text as prose within TextWidth: the first line after first,
// the following ones after rest (a hanging indent), each ending in a
// newline.
func Wrapped(first, rest, text string) string {
	return strings.Join(wrap(text, first, rest), "\n") + "\n"
}
