// Package consistency judges the versions of blobs and entities from a
// recorded history: version chains read off ETags (no lost update, every
// read explained), linearizability (with porcupine on small windows), no
// lost increments of a counter, one winner per create race, and the
// conditional reads by date. Each checker registers itself with checks.
//
// It may use checks.
package consistency
