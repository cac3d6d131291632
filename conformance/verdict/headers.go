package verdict

import (
	"sort"
	"strconv"
	"strings"
)

// judgeHeaderValues checks the headers that must have a given value (names
// any case, values exactly): Actual's part and the failure reasons.
func judgeHeaderValues(want, got map[string]string) (actual, reasons []string) {
	if len(want) == 0 {
		return nil, nil
	}
	var wrong []string
	for _, name := range sortedKeys(want) {
		v, ok := headerValue(got, name)
		switch {
		case !ok:
			wrong = append(wrong, name+" missing")
			reasons = append(reasons, "missing header "+name+", expected "+strconv.Quote(want[name]))
		case v != want[name]:
			wrong = append(wrong, name+": "+strconv.Quote(v))
			reasons = append(reasons, "header "+name+" is "+strconv.Quote(v)+", expected "+strconv.Quote(want[name]))
		}
	}
	if len(wrong) == 0 {
		return []string{"header values as expected"}, nil
	}
	return wrong, reasons
}

// headerValuesForm is Expected's part for the headers with given values.
func headerValuesForm(want map[string]string) []string {
	var parts []string
	for _, name := range sortedKeys(want) {
		parts = append(parts, name+": "+strconv.Quote(want[name]))
	}
	return parts
}

// headerValue finds name in headers keyed by any case.
func headerValue(h map[string]string, name string) (string, bool) {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
