package checks

// KeyLocal is a Checker whose verdict on a key (a blob, a counter, a
// create-once round) depends on that key's operations alone. Such a check
// can be fed a history one group of keys at a time: every operation of a key
// in one group, in Seq order, then EndGroup, which judges the keys seen so
// far and frees their state. Memory then grows with the largest group, not
// with the history: this is how a run of any length is checked in bounded
// memory (see runner.CheckHistory). Feeding the whole history and calling
// Finish alone is the same as one group.
type KeyLocal interface {
	Checker
	// Groups says, before the first Observe, how many groups the history
	// comes in (at least 1), so that a check with a time budget can share
	// it out.
	Groups(n int)
	// EndGroup judges every key observed since the last EndGroup, keeps
	// the totals and violations, and drops the keys' state. Operations of
	// a judged key must not come again.
	EndGroup()
}
