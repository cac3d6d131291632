package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

const completionLong = `Prints the shell completion script for bash, zsh, fish or powershell:
commands, flags, the allowed values of flags such as --progress and
--format, workload kinds, scenario files (*.yaml) and results directories.

bash (needs the bash-completion package):
  source <(stormcheck completion bash)                      # this shell
  stormcheck completion bash > /etc/bash_completion.d/stormcheck   # every shell
zsh:
  stormcheck completion zsh > "${fpath[1]}/_stormcheck"     # then start a new shell
fish:
  stormcheck completion fish > ~/.config/fish/completions/stormcheck.fish
powershell:
  stormcheck completion powershell | Out-String | Invoke-Expression`

var completionShells = []string{"bash", "zsh", "fish", "powershell"}

func newCompletionCmd() *cobra.Command {
	return &cobra.Command{
		Use:       "completion bash|zsh|fish|powershell",
		Short:     "Print the shell completion script",
		Long:      completionLong,
		Example:   "  source <(stormcheck completion bash)",
		ValidArgs: completionShells,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr(cmd.CommandPath(), fmt.Errorf("%s: want one shell: bash, zsh, fish or powershell", cmd.CommandPath()))
			}
			if err := cobra.OnlyValidArgs(cmd, args); err != nil {
				return usageErr(cmd.CommandPath(), fmt.Errorf("%s: %v (allowed: bash, zsh, fish, powershell)", cmd.CommandPath(), err))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root, out := cmd.Root(), cmd.OutOrStdout()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			default:
				return root.GenPowerShellCompletionWithDesc(out)
			}
		},
	}
}
