package target

// ProcessGroups are the process groups of what the target started on this
// machine (a managed Azurite or Samba): their CPU is the target's, not
// other work's. None for an account.
func (t *Target) ProcessGroups() []int {
	var out []int
	if t == nil {
		return nil
	}
	if t.Azurite != nil && t.Azurite.PID > 0 {
		out = append(out, t.Azurite.PID)
	}
	if t.Samba != nil {
		if g := t.Samba.ProcessGroup(); g > 0 {
			out = append(out, g)
		}
	}
	return out
}
