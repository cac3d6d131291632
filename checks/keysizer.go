package checks

// KeySizer is a KeyLocal checker that can be told, before a group comes,
// how many operations a key of its workload has in it (the records of the
// key, of every kind), to make room for its tables at once instead of
// growing them step by step. It is a hint: the verdict is the same without
// it, and with a wrong one.
type KeySizer interface {
	KeyLocal
	// ExpectKey says that key has ops records in the group to come.
	ExpectKey(key string, ops int)
}

// Grow makes room for n more strings.
func (t *StrTable) Grow(n int) {
	if t.ids != nil || n <= 0 {
		return
	}
	t.ids, t.strs = make(map[string]int32, n), make([]string, 1, n+1)
}
