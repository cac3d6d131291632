// Package delivery judges queue deliveries from a recorded history: every
// acknowledged message received after the final drain (at least once),
// pop receipts that supersede each other, and exclusive visibility inside a
// message's visibility timeout. Each checker registers itself with checks.
//
// It may use checks.
package delivery
