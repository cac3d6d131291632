package azurite

import "regexp"

// Credential-bearing fragments that may appear in Azurite's access log (SAS
// signatures in URLs) or in tool output.
var (
	secretKVRE  = regexp.MustCompile(`(?i)((?:^|[?&;\s"'])(?:sig|accountkey|_authtoken)=)[^&;\s"']+`)
	secretTokRE = regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+`)
)

// redact hides secret values in one line of text.
func redact(line string) string {
	line = secretKVRE.ReplaceAllString(line, "${1}REDACTED")
	return secretTokRE.ReplaceAllString(line, "${1}REDACTED")
}
