package samba

import (
	"fmt"
	"path/filepath"
	"strings"
)

// layout is where one instance keeps everything, all under its work dir.
type layout struct {
	root, conf, share, log string
	dirs                   map[string]string // smb.conf parameter -> directory
}

func newLayout(root string) layout {
	l := layout{
		root:  root,
		conf:  filepath.Join(root, "smb.conf"),
		share: filepath.Join(root, "share"),
		log:   filepath.Join(root, "smbd.log"),
		dirs:  map[string]string{},
	}
	for _, d := range []struct{ param, dir string }{
		{"private dir", "private"},
		{"lock directory", "lock"},
		{"state directory", "state"},
		{"cache directory", "cache"},
		{"pid directory", "pid"},
		{"ncalrpc dir", "ncalrpc"},
		{"binddns dir", "binddns"},
	} {
		l.dirs[d.param] = filepath.Join(root, d.dir)
	}
	return l
}

// config renders smb.conf for o, listening on 127.0.0.1:port only.
func config(o Options, l layout, port int) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, "\t"+format+"\n", args...) }
	b.WriteString("# Written by stormcheck for one run; every path lies under this directory.\n[global]\n")
	w("server role = standalone server")
	w("smb ports = %d", port)
	w("interfaces = 127.0.0.1")
	w("bind interfaces only = yes")
	w("disable netbios = yes")
	for _, k := range []string{"private dir", "lock directory", "state directory", "cache directory", "pid directory", "ncalrpc dir", "binddns dir"} {
		w("%s = %s", k, l.dirs[k])
	}
	w("passdb backend = tdbsam:%s", filepath.Join(l.dirs["private dir"], "passdb.tdb"))
	w("log file = %s", filepath.Join(l.root, "log.%%m"))
	w("log level = 1")
	w("max log size = 10000")
	w("load printers = no")
	w("printing = bsd")
	w("printcap name = /dev/null")
	w("disable spoolss = yes")
	w("usershare path =")
	w("map to guest = never")
	w("restrict anonymous = 2")
	w("obey pam restrictions = no")
	w("unix password sync = no")
	w("server min protocol = %s", o.MinProtocol)
	if o.MaxProtocol != "" {
		w("server max protocol = %s", o.MaxProtocol)
	}
	if o.RequireSigning {
		w("server signing = mandatory")
	}
	if o.RequireEncryption {
		w("server smb encrypt = required")
	}
	if o.Ciphers != "" {
		w("server smb3 encryption algorithms = %s", o.Ciphers)
	}
	w("kernel oplocks = no")
	w("kernel share modes = no")
	w("smb2 leases = %s", yesNo(!o.DisableLeases))
	for _, p := range o.Global {
		w("%s", p)
	}
	fmt.Fprintf(&b, "[%s]\n", o.Share)
	w("path = %s", l.share)
	w("read only = no")
	w("guest ok = no")
	w("valid users = %s", o.User)
	w("oplocks = yes")
	w("level2 oplocks = yes")
	w("strict locking = yes")
	w("locking = %s", yesNo(!o.IgnoreByteRangeLocks))
	w("fake oplocks = %s", yesNo(o.FakeOplocks))
	for _, p := range o.ShareParams {
		w("%s", p)
	}
	return b.String()
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
