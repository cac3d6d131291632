package runner

// Every checker registers itself with checks.
import _ "github.com/stormcheck/stormcheck/checks/checkers"
