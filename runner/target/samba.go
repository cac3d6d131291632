package target

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/stormcheck/stormcheck/runner/faults"
	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/scenarios"
)

// sambaSecurity is what the managed Samba requires, for the target's
// description: "", ", signing required", ", signing and encryption required".
func sambaSecurity(o samba.Options) string {
	switch {
	case o.RequireSigning && o.RequireEncryption:
		return ", signing and encryption required"
	case o.RequireSigning:
		return ", signing required"
	case o.RequireEncryption:
		return ", encryption required"
	}
	return ""
}

// openSamba starts the managed Samba of a target of kind samba and, when
// the scenario has faults, the stages in front of it: the SMB stream stage
// of the SMB broken promises, then Toxiproxy for the net.* faults. HTTP
// faults and the other broken promises do not apply to SMB and are refused.
func (t *Target) openSamba(ctx context.Context, st scenarios.Target, o Options) error {
	opts := samba.Options{Progress: o.Progress, RequireSigning: st.Signing == scenarios.SMBRequired, RequireEncryption: st.Encryption == scenarios.SMBRequired}
	if o.WorkDir != "" {
		opts.WorkDir = filepath.Join(o.WorkDir, "samba") // config, passdb, logs and the share, deleted with the results' temp files
	}
	if s := o.Faults; s != nil {
		for _, f := range s.Faults() {
			switch fam := f.Family(); {
			case fam == "net", s.IsSMB(f):
			case fam == "target":
				return fmt.Errorf("target samba: fault %s (%s): target faults act on a managed Azurite only", f.Name, f.Kind)
			default:
				return fmt.Errorf("target samba: fault %s (%s) acts on HTTP requests; on SMB use the net.* faults and broken.smb-*", f.Name, f.Kind)
			}
		}
		if s.HasSMB() && (opts.RequireSigning || opts.RequireEncryption) {
			return fmt.Errorf("target samba: the broken.smb-* faults rewrite SMB messages, which a server that requires signing or encryption refuses")
		}
	}
	inst, err := samba.Start(ctx, opts)
	if err != nil {
		return fmt.Errorf("target samba: %w", err)
	}
	t.Samba, t.managed, t.SMBAddr = inst, true, inst.Addr
	t.Desc = "managed Samba (" + inst.Addr + sambaSecurity(opts) + ")"
	if o.Faults == nil {
		return nil
	}
	if o.Faults.HasSMB() {
		st, err := faults.StartSMBStream(o.Faults, t.SMBAddr)
		if err != nil {
			t.Close()
			return err
		}
		t.smbStream, t.SMBAddr = st, st.Addr()
		t.Desc += " behind the SMB fault stage (" + t.SMBAddr + ")"
	}
	if o.Faults.HasNet() {
		n, urls, err := faults.StartNetwork(map[string]string{"file": "tcp://" + t.SMBAddr})
		if err != nil {
			t.Close()
			return err
		}
		u, err := url.Parse(urls["file"])
		if err != nil {
			t.Close()
			return err
		}
		t.Network, t.SMBAddr = n, u.Host
		t.Desc += " through Toxiproxy (" + t.SMBAddr + ")"
	}
	return nil
}
