package smb2_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/runner/samba/sambatest"
	"github.com/stormcheck/stormcheck/runner/smb2"
)

// These tests run the client against a private Samba (runner/samba). They
// assert on statuses and on the order of events, never on timing.

// client is one logged-on SMB client on the instance's share.
type client struct {
	conn *smb2.Conn
	sess *smb2.Session
	tree *smb2.Tree
}

func connect(t *testing.T, inst *samba.Instance, o smb2.Options) *client {
	t.Helper()
	tr := sambatest.Logon(t, inst, o)
	return &client{conn: tr.Session().Conn(), sess: tr.Session(), tree: tr}
}

// ctxT bounds one test's calls; generous, so that it never decides a result
// on a busy machine, only ends a hung test.
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func wantStatus(t *testing.T, what string, err error, st smb2.Status) {
	t.Helper()
	if !errors.Is(err, st) {
		t.Fatalf("%s: got %v, want %v", what, err, st)
	}
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// roundTripFile creates a file, writes, reads back, lists it and removes it.
func roundTripFile(t *testing.T, c *client, name string) {
	t.Helper()
	ctx := ctxT(t)
	f, err := c.tree.OpenFile(ctx, name, smb2.GenericRead|smb2.GenericWrite, smb2.ShareAll, smb2.FileOverwriteIf)
	must(t, "create", err)
	payload := make([]byte, 100_000) // more than one 64 KiB credit
	rand.Read(payload)
	n, err := f.Write(ctx, 7, payload)
	must(t, "write", err)
	if n != len(payload) {
		t.Fatalf("wrote %d of %d bytes", n, len(payload))
	}
	got, err := f.Read(ctx, 7, len(payload))
	must(t, "read", err)
	if !slices.Equal(got, payload) {
		t.Fatalf("read back %d bytes that differ from the %d written", len(got), len(payload))
	}
	_, err = f.Read(ctx, 1<<30, 10)
	wantStatus(t, "read past the end", err, smb2.StatusEndOfFile)
	st, err := f.Stat(ctx)
	must(t, "stat", err)
	if st.EndOfFile != uint64(7+len(payload)) || st.DeletePending || st.Directory {
		t.Fatalf("standard info %+v", st)
	}
	must(t, "flush", f.Flush(ctx))
	must(t, "truncate", f.Truncate(ctx, 3))
	must(t, "close", f.Close(ctx))
	ents, err := c.tree.ReadDir(ctx, "")
	must(t, "list", err)
	i := slices.IndexFunc(ents, func(e smb2.DirEntry) bool { return e.Name == name })
	if i < 0 || ents[i].EndOfFile != 3 {
		t.Fatalf("listing %v lacks %s of 3 bytes", ents, name)
	}
	must(t, "remove", c.tree.Remove(ctx, name))
	_, err = c.tree.OpenFile(ctx, name, smb2.GenericRead, smb2.ShareAll, smb2.FileOpen)
	wantStatus(t, "open after remove", err, smb2.StatusObjectNameNotFound)
	must(t, "echo", c.conn.Echo(ctx))
}

// TestSambaDialectsSigningEncryption logs on with NTLMv2 with each dialect
// and protection the harness uses, and moves data each way.
func TestSambaDialectsSigningEncryption(t *testing.T) {
	plain := sambatest.Start(t, samba.Options{})
	signed := sambatest.Start(t, samba.Options{RequireSigning: true})
	sealed := sambatest.Start(t, samba.Options{RequireEncryption: true})
	for _, tc := range []struct {
		name          string
		inst          *samba.Instance
		opts          smb2.Options
		signed, seald bool
		cipher        smb2.Cipher
	}{
		{"3.1.1", plain, smb2.Options{Dialects: []smb2.Dialect{smb2.Dialect311}}, false, false, smb2.CipherAES128GCM},
		{"2.1", plain, smb2.Options{Dialects: []smb2.Dialect{smb2.Dialect210}}, false, false, smb2.CipherNone},
		{"3.1.1 client signs", plain, smb2.Options{Dialects: []smb2.Dialect{smb2.Dialect311}, RequireSigning: true}, true, false, smb2.CipherAES128GCM},
		{"3.1.1 client encrypts CCM", plain, smb2.Options{Dialects: []smb2.Dialect{smb2.Dialect311}, Ciphers: []smb2.Cipher{smb2.CipherAES128CCM}, RequireEncryption: true}, false, true, smb2.CipherAES128CCM},
		{"3.1.1 signing required", signed, smb2.Options{Dialects: []smb2.Dialect{smb2.Dialect311}}, true, false, smb2.CipherAES128GCM},
		{"3.0.2 signing required", signed, smb2.Options{Dialects: []smb2.Dialect{smb2.Dialect302}}, true, false, smb2.CipherAES128CCM},
		{"2.1 signing required", signed, smb2.Options{Dialects: []smb2.Dialect{smb2.Dialect210}}, true, false, smb2.CipherNone},
		{"3.1.1 encryption required GCM", sealed, smb2.Options{Dialects: []smb2.Dialect{smb2.Dialect311}}, false, true, smb2.CipherAES128GCM},
		{"3.1.1 encryption required CCM", sealed, smb2.Options{Dialects: []smb2.Dialect{smb2.Dialect311}, Ciphers: []smb2.Cipher{smb2.CipherAES128CCM}}, false, true, smb2.CipherAES128CCM},
		{"3.0 encryption required CCM", sealed, smb2.Options{Dialects: []smb2.Dialect{smb2.Dialect300}}, false, true, smb2.CipherAES128CCM},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := connect(t, tc.inst, tc.opts)
			if want := tc.opts.Dialects[0]; c.conn.Dialect != want {
				t.Fatalf("dialect %v, want %v", c.conn.Dialect, want)
			}
			if c.sess.Signed != tc.signed || c.sess.Encrypted != tc.seald || c.conn.Cipher != tc.cipher {
				t.Fatalf("signed %v encrypted %v cipher %v; want %v %v %v",
					c.sess.Signed, c.sess.Encrypted, c.conn.Cipher, tc.signed, tc.seald, tc.cipher)
			}
			roundTripFile(t, c, fmt.Sprintf("rt-%d", time.Now().UnixNano()))
		})
	}
	t.Run("2.1 refused when encryption is required", func(t *testing.T) {
		ctx := ctxT(t)
		c, err := smb2.Dial(ctx, sealed.Addr, smb2.Options{Dialects: []smb2.Dialect{smb2.Dialect210}})
		must(t, "dial", err)
		defer c.Close()
		_, err = c.SessionSetup(ctx, smb2.Credentials{User: sealed.User, Password: sealed.Password})
		wantStatus(t, "2.1 session setup on a server that requires encryption", err, smb2.StatusAccessDenied)
	})
	t.Run("wrong password", func(t *testing.T) {
		ctx := ctxT(t)
		c, err := smb2.Dial(ctx, plain.Addr, smb2.Options{})
		must(t, "dial", err)
		defer c.Close()
		_, err = c.SessionSetup(ctx, smb2.Credentials{User: plain.User, Password: plain.Password + "x"})
		wantStatus(t, "session setup with a wrong password", err, smb2.StatusLogonFailure)
	})
}
