// Package samba runs a private Samba file server (smbd) on loopback for
// stormcheck's SMB workloads, as package azurite does for the other
// services.
//
// Typical use:
//
//	inst, err := samba.Start(ctx, samba.Options{WorkDir: dir, Progress: os.Stderr})
//	if err != nil { ... }
//	defer inst.Stop()
//	// dial inst.Addr, log on as inst.User with inst.Password, use share inst.Share
//
// Start finds smbd (Debian's package samba; when it is missing and the
// process runs as root with apt-get, Ensure installs it under a file lock
// and says so on Progress), writes an smb.conf whose every directory lies
// under WorkDir, adds a passdb user with a random password, starts smbd in
// the foreground in its own process group on a free 127.0.0.1 port, and
// waits until it answers an SMB2 NEGOTIATE. Stop kills the group and waits.
// Nothing listens on another interface, and no NetBIOS service is started.
//
// The options turn off the promises the SMB checks rely on, so that a run
// can show a check catching a server that breaks them: IgnoreByteRangeLocks
// (locking = no), FakeOplocks (fake oplocks = yes: oplocks granted and
// never broken) and DisableLeases (smb2 leases = no). Samba 4.17 has no
// setting that stops it enforcing share modes (the old "share modes"
// parameter is gone), so that broken promise needs a stage on the SMB stream.
//
// smbd needs root. The password is never printed; Instance's String omits it.
package samba
