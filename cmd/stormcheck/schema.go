package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/scenarios"
)

func newSchemaCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "schema [--out FILE]",
		Short: "Print the JSON Schema of scenario files (for editors)",
		Long: `Prints the JSON Schema (draft-07) of scenario files, made from the loader's own
tables: its fields, the workload kinds with their params (types, bounds,
defaults), the checks, executors, target kinds and fault kinds. With the line

  # yaml-language-server: $schema=./scenario.schema.json

at the top of a scenario, VS Code's YAML extension (and any editor using
yaml-language-server) completes and checks fields as you type; 'stormcheck
init' writes it beside the scenario it writes. 'stormcheck validate' stays
the judge: the schema cannot express every rule (cross-field rules, secrets,
threshold syntax).`,
		Example: `  stormcheck schema --out scenario.schema.json
  stormcheck schema | jq '.definitions.workload.properties | keys'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := scenarios.Schema()
			if err != nil {
				return &exitError{code: exitHarness, err: err}
			}
			if out == "" {
				_, err = cmd.OutOrStdout().Write(b)
				return err
			}
			if err := reports.WriteFileAtomic(out, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
				return &exitError{code: exitHarness, err: fmt.Errorf("%s: %v", cmd.CommandPath(), err)}
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "wrote", out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the schema to FILE (atomically) instead of stdout")
	return cmd
}
