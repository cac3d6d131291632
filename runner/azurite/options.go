package azurite

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// DefaultVersion is the Azurite npm version used when Options.Version is empty.
const DefaultVersion = "3.37.0"

// DevAccount is the name of Azurite's built-in development storage account.
const DevAccount = "devstoreaccount1"

// devAccountKey is Azurite's built-in key for DevAccount. It is public and
// documented, but still never printed by this package.
const devAccountKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

// Environment variables read by Ensure.
const (
	// EnvAzurite names a variable holding the path of an azurite binary to use.
	EnvAzurite = "STORMCHECK_AZURITE"
	// EnvCache names a variable holding the root of stormcheck's cache; the
	// default install directory is $STORMCHECK_CACHE/azurite-<version>.
	EnvCache = "STORMCHECK_CACHE"
)

// Options configures Ensure and Start. The zero value is usable.
type Options struct {
	// Version is the exact Azurite npm version to use (default DefaultVersion).
	Version string
	// CacheDir is where Ensure installs Azurite with npm. Default:
	// os.UserCacheDir()/stormcheck/azurite-<version>; a non-empty
	// $STORMCHECK_CACHE replaces os.UserCacheDir()/stormcheck.
	CacheDir string
	// WorkDir holds Azurite's data workspace (a temporary sub-directory that
	// Stop removes) and, by default, its log. Default: a new os.MkdirTemp
	// directory; Stop leaves only the log file in it.
	WorkDir string
	// LogPath receives everything Azurite writes to stdout and stderr (its
	// access log and start/stop messages). Default: WorkDir/azurite.log.
	LogPath string
	// Progress, if not nil, receives one-line human notes about slow steps
	// (npm install, waiting for another process's install).
	Progress io.Writer
	// OAuth starts Azurite with HTTPS and "--oauth basic", so that Entra ID
	// bearer tokens are accepted (see DevTokenCredential). Requires CertPEM
	// and KeyPEM. URLs then use https.
	OAuth bool
	// CertPEM and KeyPEM are paths to the PEM certificate and private key
	// Azurite serves in OAuth mode. The certificate must be valid for
	// 127.0.0.1; Instance.HTTPClient trusts it.
	CertPEM, KeyPEM string
	// StartTimeout bounds Start from launching the process to all three
	// services answering an authenticated request (default 60s). The npm
	// install done by Ensure is bounded only by the context.
	StartTimeout time.Duration
	// StopTimeout is how long Stop waits after SIGTERM before SIGKILL
	// (default 10s).
	StopTimeout time.Duration
	// ExtraArgs are appended to Azurite's command line.
	ExtraArgs []string
}

var versionRE = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+-]*$`)

// withDefaults returns a copy of o with every default filled in.
func (o Options) withDefaults() (Options, error) {
	if o.Version == "" {
		o.Version = DefaultVersion
	}
	if !versionRE.MatchString(o.Version) {
		return o, fmt.Errorf("azurite: invalid version %q", o.Version)
	}
	if o.CacheDir == "" {
		root := os.Getenv(EnvCache)
		if root == "" {
			if ucd, err := os.UserCacheDir(); err == nil {
				root = filepath.Join(ucd, "stormcheck")
			} else {
				// No $HOME or $XDG_CACHE_HOME (a bare CI runner): a shared
				// temporary cache still lets tests and runs share one install.
				root = filepath.Join(os.TempDir(), "stormcheck-cache")
				o.progressf("no user cache directory (%v); caching Azurite under %s (set %s to choose)", err, root, EnvCache)
			}
		}
		o.CacheDir = filepath.Join(root, "azurite-"+o.Version)
	}
	abs, err := filepath.Abs(o.CacheDir)
	if err != nil {
		return o, fmt.Errorf("azurite: cache dir: %w", err)
	}
	o.CacheDir = abs
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = 10 * time.Second
	}
	if o.OAuth && (o.CertPEM == "" || o.KeyPEM == "") {
		return o, fmt.Errorf("azurite: OAuth mode needs CertPEM and KeyPEM (HTTPS is required for bearer tokens)")
	}
	for _, p := range []*string{&o.CertPEM, &o.KeyPEM} { // Azurite runs in another directory
		if *p != "" {
			if *p, err = filepath.Abs(*p); err != nil {
				return o, fmt.Errorf("azurite: %w", err)
			}
		}
	}
	return o, nil
}

// progressf writes one line to o.Progress if set.
func (o Options) progressf(format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, format+"\n", args...)
	}
}
