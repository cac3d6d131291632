package azurite

import "regexp"

// secretRE matches credential-bearing fragments that may appear in Azurite's
// access log (SAS signatures in URLs) or tool output.
var secretRE = regexp.MustCompile(`(?i)((?:^|[?&;\s])(?:sig|accountkey|_authtoken|authorization)[=:]\s*)[^&;\s"]+`)

// redact hides secret values in one line of text.
func redact(line string) string {
	return secretRE.ReplaceAllString(line, "${1}REDACTED")
}
