// Package services makes every service stormcheck runs available: importing
// it for its side effect registers the workload kinds of each service
// package (runner/blob, runner/table, runner/queue) with runner/workload,
// the way a program imports the database/sql drivers it offers.
package services

import (
	_ "github.com/stormcheck/stormcheck/runner/blob"  // blobs, containers, leases
	_ "github.com/stormcheck/stormcheck/runner/files" // Azure Files over SMB
	_ "github.com/stormcheck/stormcheck/runner/queue" // queues
	_ "github.com/stormcheck/stormcheck/runner/table" // tables
)
