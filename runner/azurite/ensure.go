package azurite

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/internal/boundedread"
)

// Ensure returns the path of an azurite binary of exactly opts.Version
// (default DefaultVersion). It looks, in order, at:
//
//  1. $STORMCHECK_AZURITE, which must be that version (an error otherwise);
//  2. the cache directory (Options.CacheDir);
//  3. `azurite` on PATH, if it reports that version;
//
// and otherwise installs it with npm into the cache directory. The install
// is atomic (npm runs in a temporary directory beside the cache, which is
// then renamed into place) and serialized by a lock file (CacheDir+".lock"),
// so parallel test binaries install once and an interrupted install never
// leaves a half-populated cache. Without node or npm the error is a single
// line explaining the alternatives (ErrNoNode).
func Ensure(ctx context.Context, opts Options) (binPath string, err error) {
	o, err := opts.withDefaults()
	if err != nil {
		return "", err
	}
	if p := os.Getenv(EnvAzurite); p != "" {
		v, err := binVersion(ctx, p)
		if err != nil {
			return "", fmt.Errorf("azurite: %s=%s: %w", EnvAzurite, p, err)
		}
		if v != o.Version {
			return "", fmt.Errorf("azurite: %s=%s is azurite %s, want %s", EnvAzurite, p, v, o.Version)
		}
		return p, nil
	}
	if bin, ok := cachedBin(o.CacheDir, o.Version); ok {
		return bin, nil
	}
	if p, err := exec.LookPath("azurite"); err == nil {
		if v, err := binVersion(ctx, p); err == nil && v == o.Version {
			return p, nil
		}
	}
	return install(ctx, o)
}

// cachedBin reports the azurite binary inside an npm prefix dir if the
// installed package is exactly version.
func cachedBin(dir, version string) (string, bool) {
	bin := filepath.Join(dir, "node_modules", ".bin", "azurite")
	if _, err := os.Stat(bin); err != nil {
		return "", false
	}
	v, err := packageVersion(filepath.Join(dir, "node_modules", "azurite", "package.json"))
	if err != nil || v != version {
		return "", false
	}
	return bin, true
}

// binVersion returns the version of an azurite binary: from the package.json
// of the npm package it belongs to when it can be found (cheap), else from
// `azurite --version` (which takes about 2 s: it loads all of Azurite).
func binVersion(ctx context.Context, bin string) (string, error) {
	if script, err := filepath.EvalSymlinks(bin); err == nil {
		dir := filepath.Dir(script)
		for range 4 { // .../azurite/dist/src/azurite.js -> .../azurite/package.json
			if v, err := packageVersion(filepath.Join(dir, "package.json")); err == nil {
				return v, nil
			}
			dir = filepath.Dir(dir)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	lines := strings.Fields(string(out))
	if len(lines) == 0 {
		return "", fmt.Errorf("%s --version printed nothing", bin)
	}
	return lines[len(lines)-1], nil
}

// maxPackageJSONBytes bounds a package.json that packageVersion reads:
// Azurite 3.37.0's is 19 KB. A larger one is not Azurite's (binVersion then
// asks the binary).
const maxPackageJSONBytes = 1 << 20

// packageVersion reads the version of the npm package "azurite" from a
// package.json; any other package is an error.
func packageVersion(path string) (string, error) {
	b, err := boundedread.ReadFile(path, maxPackageJSONBytes, "a package.json")
	if err != nil {
		return "", err
	}
	var pj struct{ Name, Version string }
	if err := json.Unmarshal(b, &pj); err != nil {
		return "", err
	}
	if pj.Name != "azurite" || pj.Version == "" {
		return "", fmt.Errorf("%s: not the azurite package", path)
	}
	return pj.Version, nil
}
