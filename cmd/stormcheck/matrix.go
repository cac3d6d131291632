package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stormcheck/stormcheck/runner/matrix"
	"github.com/stormcheck/stormcheck/scenarios"
)

func newMatrixCmd() *cobra.Command {
	var kinds, scens, out string
	var duration time.Duration
	cmd := &cobra.Command{
		Use:   "matrix",
		Short: "Run every core scenario under every fault kind and print the verdicts",
		Long: `Runs each core scenario (a small workload of each core kind) under each fault
kind, one short run per cell (the cells of a row share one managed Azurite),
and prints the fault matrix: per cell the checks' verdicts with the operations
each decided, what the cell must show and the share of attempts with a known
outcome.

A cell without a broken promise must end with no check failing (a crash may
cause a true lost update, named as such) and every check deciding at least
its floor of the operations it could judge: 50% (README, "The fault
matrix", says why; none after a crash). A broken promise's cell must
end with its check failing, and is n/a where that check does not run. Every
cell's results stay under --out; matrix.md and matrix.json sum them up. The
last line says "matrix: ok" or "matrix: FAILED" with the cells at fault;
exit code 1 when it failed.

The SMB rows (files-share-modes, files-locks, files-leases,
files-delete-pending) run only when --scenarios names them: each cell starts
a managed Samba (root on Linux), takes the net.* faults and the
broken.smb-* broken promises, and every other kind is n/a there. Their
checks count what they decide in their own units, so each has a floor of
its own, about half of what it decides with or without a fault
(share-modes 10%, byte-range-locks 30%, lease-breaks 5%, delete-pending
15%).`,
		Example: `  stormcheck matrix                                   # all 12 scenarios x 27 kinds (long)
  stormcheck matrix --scenarios etag-counter,queue-work --kinds http.drop-response,broken.early-visible
  stormcheck matrix --duration 8s --out results/matrix`,
		Args: exactArgs(0, "matrix takes no arguments (see --scenarios and --kinds)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ks, err := pickList(kinds, scenarios.FaultKindNames(), "--kinds")
			if err != nil {
				return usageErr(cmd.CommandPath(), err)
			}
			var core, all []string
			for _, s := range matrix.CoreScenarios {
				core = append(core, s.Name)
			}
			rows := append(slices.Clone(matrix.CoreScenarios), matrix.SMBScenarios...)
			for _, s := range rows {
				all = append(all, s.Name)
			}
			names, err := pickList(scens, all, "--scenarios")
			if err != nil {
				return usageErr(cmd.CommandPath(), err)
			}
			if scens == "" {
				names = core // the SMB rows need root and Samba: only when named
			}
			var ss []matrix.Scenario
			for _, s := range rows {
				if slices.Contains(names, s.Name) {
					ss = append(ss, s)
				}
			}
			if duration <= 0 {
				return usageErr(cmd.CommandPath(), fmt.Errorf("--duration %s: must be positive", duration))
			}
			if out == "" {
				out = filepath.Join("results", "matrix-"+time.Now().Format("20060102-150405"))
			}
			ctx, stop := signal.NotifyContext(context.Background(), interruptSignals()...)
			defer stop()
			fmt.Fprintf(cmd.ErrOrStderr(), "stormcheck: fault matrix, %d scenario(s) x %d kind(s), %s each, results in %s\n", len(ss), len(ks), duration, out)
			cells, err := matrix.Run(ctx, matrix.Options{Scenarios: ss, Kinds: ks, Duration: duration, Dir: out, Log: cmd.OutOrStdout()})
			if len(cells) > 0 {
				var md strings.Builder
				_ = matrix.WriteMarkdown(&md, cells, ks)
				fmt.Fprintf(cmd.OutOrStdout(), "\n%s", md.String())
				_ = os.WriteFile(filepath.Join(out, "matrix.md"), []byte(md.String()), 0o644)
				if b, jerr := json.MarshalIndent(cells, "", "  "); jerr == nil {
					_ = os.WriteFile(filepath.Join(out, "matrix.json"), b, 0o644)
				}
			}
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "stormcheck: matrix stopped: %v\n", err)
				return exitWith(exitInterrupted)
			}
			line, ok := matrix.Verdict(cells)
			fmt.Fprintf(cmd.OutOrStdout(), "\n%s\n", line)
			if !ok {
				return exitWith(exitViolation)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&kinds, "kinds", "", "comma-separated fault kinds (default: all; the README's Faults section lists them)")
	cmd.Flags().StringVar(&scens, "scenarios", "", "comma-separated scenarios (default: the core ones; the SMB rows only when named)")
	cmd.Flags().DurationVar(&duration, "duration", 5*time.Second, "each cell's load")
	cmd.Flags().StringVar(&out, "out", "", "results folder (default results/matrix-DATE-TIME)")
	return cmd
}

// pickList splits a comma-separated flag value into items of allowed; ""
// means all of them.
func pickList(v string, allowed []string, flag string) ([]string, error) {
	if v == "" {
		return allowed, nil
	}
	var out []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(allowed, s) {
			return nil, fmt.Errorf("%s: unknown %q; allowed: %s", flag, s, strings.Join(allowed, ", "))
		}
		out = append(out, s)
	}
	return out, nil
}
