// Package shards moves and combines the results of a sharded run: each
// shard uploads its results folder to a container (Upload), the merging
// machine downloads them (Download), and Merge combines the shards'
// histories, histograms and summaries into one results folder.
//
// It may use checks, reports, scenarios, runner (the results files and
// their checks), runner/target and runner/cleanup.
package shards
