package reports

// naturalLess orders names as people do: runs of digits by their value, so
// k2 comes before k10 and k0-r9 before k0-r10; otherwise byte by byte.
func NaturalLess(a, b string) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			ei, ej := i, j
			for ei < len(a) && isDigit(a[ei]) {
				ei++
			}
			for ej < len(b) && isDigit(b[ej]) {
				ej++
			}
			// compare the runs' values: without leading zeros, the longer
			// run is larger; then digit by digit
			na, nb := trimZeros(a[i:ei]), trimZeros(b[j:ej])
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			if ei-i != ej-j { // equal values: fewer leading zeros first
				return ei-i < ej-j
			}
			i, j = ei, ej
			continue
		}
		if a[i] != b[j] {
			return a[i] < b[j]
		}
		i++
		j++
	}
	return len(a)-i < len(b)-j
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}
