package checks_test

// Every checker registers itself with checks.
import _ "github.com/stormcheck/stormcheck/checks/checkers"
