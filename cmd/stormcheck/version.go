package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version, when set at build time with -ldflags "-X main.version=v1.2.3",
// wins over the module version from the build info.
var version = ""

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version: module version, VCS revision and time, Go version",
		Long: `Prints the module version and the VCS revision, commit time and whether the
work tree had uncommitted changes, as the Go toolchain recorded them in the
binary (runtime/debug.ReadBuildInfo). 'go build' and 'go install' record
them; 'go run' and -buildvcs=false do not, and the output says so.`,
		Example: `  stormcheck version
  stormcheck --version`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), versionString())
			return nil
		},
	}
}

// versionString describes this binary from its build info.
func versionString() string {
	bi, _ := debug.ReadBuildInfo()
	return describeBuild(bi, version)
}

// describeBuild describes a build: "stormcheck VERSION (revision REV,
// committed TIME[, modified]) GOVERSION OS/ARCH". override, when set,
// replaces the module version.
func describeBuild(bi *debug.BuildInfo, override string) string {
	goVersion := runtime.Version()
	ver := "(unknown)"
	settings := map[string]string{}
	if bi != nil {
		goVersion = bi.GoVersion
		ver = bi.Main.Version
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
	}
	if override != "" {
		ver = override
	}
	if ver == "" || ver == "(devel)" {
		ver = "(devel)"
	}
	var vcs []string
	if rev := settings["vcs.revision"]; rev != "" {
		vcs = append(vcs, "revision "+rev)
		if t := settings["vcs.time"]; t != "" {
			vcs = append(vcs, "committed "+t)
		}
		if settings["vcs.modified"] == "true" {
			vcs = append(vcs, "modified")
		}
	} else {
		vcs = append(vcs, "no VCS revision recorded (built with go run or -buildvcs=false)")
	}
	return fmt.Sprintf("stormcheck %s (%s) %s %s/%s", ver, strings.Join(vcs, ", "), goVersion, runtime.GOOS, runtime.GOARCH)
}
