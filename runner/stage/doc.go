// Package stage bounds what a run does after its load: lease releases once
// Ctrl-C stopped the load, the final reads, the cleanup and a shard's
// done-mark are each a stage with one deadline for every call it makes,
// whatever the retry policy says, cut at once by the press or the trouble
// that ends it.
//
// It may use the standard library only.
package stage
