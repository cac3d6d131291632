package targettest

import (
	"fmt"
	"strings"
)

// EveryKind is a scenario's workloads block with one workload of each of
// kinds (named w0, w1, ... in that order, so each has its own containers,
// tables and queues and one target serves them all), lease-mutex holders
// keeping their lease 3 s so that most of them hold one at any moment. It
// also returns the name given to each kind.
func EveryKind(kinds []string) (string, map[string]string) {
	var b strings.Builder
	names := map[string]string{}
	b.WriteString("workloads:\n")
	for i, k := range kinds {
		names[k] = fmt.Sprintf("w%d", i)
		if k == "blob.lease-mutex" {
			fmt.Fprintf(&b, "  - {name: w%d, kind: %s, actors: 6, keys: 12, params: {hold: 3s}}\n", i, k)
			continue
		}
		fmt.Fprintf(&b, "  - {name: w%d, kind: %s, actors: 2}\n", i, k)
	}
	return b.String(), names
}

// HTTPKinds are the kinds among kinds that talk HTTP to a storage account
// or Azurite: all but the SMB kinds (files.*), which need target kind samba.
func HTTPKinds(kinds []string) []string {
	var out []string
	for _, k := range kinds {
		if !strings.HasPrefix(k, "files.") {
			out = append(out, k)
		}
	}
	return out
}
