package samba

import (
	"fmt"
	"io"
	"regexp"
	"time"
)

// Options configures Start. The zero value is usable as root.
type Options struct {
	// WorkDir holds the configuration, passdb, state, logs and the share's
	// directory. Default: a new temporary directory that Stop removes.
	WorkDir string
	// Share is the share's name (default "stormcheck").
	Share string
	// User is the Unix user added to Samba's passdb (default "root"). It
	// must exist; the password is random.
	User string
	// RequireSigning sets "server signing = mandatory".
	RequireSigning bool
	// RequireEncryption sets "server smb encrypt = required".
	RequireEncryption bool
	// Ciphers sets "server smb3 encryption algorithms" (e.g. "AES-128-CCM");
	// empty keeps Samba's default.
	Ciphers string
	// MinProtocol and MaxProtocol bound the dialects (defaults SMB2_10 and
	// Samba's own maximum, SMB3_11).
	MinProtocol, MaxProtocol string
	// IgnoreByteRangeLocks sets "locking = no": every lock request is
	// granted and no I/O is refused for a lock (a broken promise).
	IgnoreByteRangeLocks bool
	// DisableLeases sets "smb2 leases = no" (no lease is ever granted).
	DisableLeases bool
	// FakeOplocks sets "fake oplocks = yes": every oplock asked for is
	// granted and never broken by a conflicting open (a broken promise).
	// Leases are not affected (none is granted then).
	FakeOplocks bool
	// Global and ShareParams are extra "name = value" lines for the
	// [global] section and the share's section.
	Global, ShareParams []string
	// Progress, if not nil, receives one-line notes about slow steps (an
	// apt-get install of samba, waiting for another process's install).
	Progress io.Writer
	// StartTimeout bounds Start from launching smbd to its first NEGOTIATE
	// answer (default 30s).
	StartTimeout time.Duration
	// StopTimeout is how long Stop waits after SIGTERM before SIGKILL
	// (default 5s).
	StopTimeout time.Duration
}

var (
	nameRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`)
	paramRE = regexp.MustCompile(`^[a-z0-9 ]+ = [^\n\r\[\]]*$`)
	protoRE = regexp.MustCompile(`^(|SMB2_02|SMB2_10|SMB3_00|SMB3_02|SMB3_11)$`)
)

func (o Options) withDefaults() (Options, error) {
	if o.Share == "" {
		o.Share = "stormcheck"
	}
	if o.User == "" {
		o.User = "root"
	}
	if o.MinProtocol == "" {
		o.MinProtocol = "SMB2_10"
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = 5 * time.Second
	}
	if !nameRE.MatchString(o.Share) || o.Share == "global" || o.Share == "homes" || o.Share == "printers" {
		return o, fmt.Errorf("samba: share name %q: use letters, digits, '_', '.', '-' (not global, homes or printers)", o.Share)
	}
	if !nameRE.MatchString(o.User) {
		return o, fmt.Errorf("samba: user name %q: use letters, digits, '_', '.', '-'", o.User)
	}
	if !protoRE.MatchString(o.MinProtocol) || !protoRE.MatchString(o.MaxProtocol) {
		return o, fmt.Errorf("samba: protocol bounds %q..%q: use SMB2_10, SMB3_00, SMB3_02 or SMB3_11", o.MinProtocol, o.MaxProtocol)
	}
	for _, p := range append(append([]string(nil), o.Global...), o.ShareParams...) {
		if !paramRE.MatchString(p) {
			return o, fmt.Errorf("samba: parameter line %q: want \"name = value\" on one line", p)
		}
	}
	if o.Ciphers != "" && !regexp.MustCompile(`^[A-Z0-9, -]+$`).MatchString(o.Ciphers) {
		return o, fmt.Errorf("samba: Ciphers %q: want a list such as \"AES-128-GCM, AES-128-CCM\"", o.Ciphers)
	}
	return o, nil
}

func (o Options) progressf(format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "samba: "+format+"\n", args...)
	}
}
