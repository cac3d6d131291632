package target

import "regexp"

// secretPatterns match the parts of a string that must never reach a log, a
// report or the terminal: account keys, SAS signatures and tokens.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)(AccountKey=)[^;"'\s]+`),
	regexp.MustCompile(`(?i)(SharedAccessSignature=)[^;"'\s]+`),
	regexp.MustCompile(`(?i)([?&]sig=)[^&"'\s]+`),
	regexp.MustCompile(`(?i)(Authorization:\s*)[^\r\n"]+`),
	regexp.MustCompile(`(?i)(Bearer\s+)[A-Za-z0-9\-_.~+/=]+`),
}

// Redact removes secrets from s, keeping the name of what was removed.
func Redact(s string) string {
	for _, re := range secretPatterns {
		s = re.ReplaceAllString(s, "${1}REDACTED")
	}
	return s
}
