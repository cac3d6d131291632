// Package batch judges table batches from a recorded history: a batch
// applies all or nothing (batch atomicity), one page of a query never sees
// part of a batch (snapshot reads), batches and their isolation across
// entities, and Merge against Replace. Each checker registers itself with
// checks.
//
// It may use checks.
package batch
