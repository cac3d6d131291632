// Package lease judges leases from a recorded history: the lease model
// (which holder certainly or possibly held each lease when, from the
// acquire, renew, change, release and break calls and the clock bounds),
// lease exclusion (no second holder inside a certainly-held window, no
// write accepted without the holding lease), the lease protocol (each call
// answered as the documented state machine allows) and container leases.
// Each checker registers itself with checks.
//
// It may use checks.
package lease
