// Package checkers makes every checker available: importing it for its side
// effect registers each checker package (checks/appendlog, checks/consistency, checks/lease,
// checks/delivery, checks/batch) with checks, where checks.New finds a
// checker by the name a scenario gives it.
package checkers

import (
	_ "github.com/stormcheck/stormcheck/checks/appendlog"
	_ "github.com/stormcheck/stormcheck/checks/batch"
	_ "github.com/stormcheck/stormcheck/checks/consistency"
	_ "github.com/stormcheck/stormcheck/checks/delivery"
	_ "github.com/stormcheck/stormcheck/checks/filerest"
	_ "github.com/stormcheck/stormcheck/checks/lease"
	_ "github.com/stormcheck/stormcheck/checks/seqnum"
	_ "github.com/stormcheck/stormcheck/checks/smb"
)
