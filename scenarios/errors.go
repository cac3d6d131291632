package scenarios

import "github.com/stormcheck/stormcheck/scenarios/internal/yamlx"

// Error is one problem in a scenario file, located to its line and column, as
// FILE:LINE:COL: FIELD: MSG (see yamlx.Error).
type Error = yamlx.Error

// ErrorList is every problem found in file order. Parse and Load return it as their error when the file is invalid.
type ErrorList = yamlx.ErrorList

// Field paths, spelling suggestions and value descriptions, shared with the
// other loader.
var (
	join       = yamlx.Join
	index      = yamlx.Index
	resolve    = yamlx.Resolve
	didYouMean = yamlx.DidYouMean
	describe   = yamlx.Describe
)
