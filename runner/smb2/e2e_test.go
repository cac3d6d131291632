package smb2_test

import (
	"context"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/runner/samba/sambatest"
	"github.com/stormcheck/stormcheck/runner/smb2"
)

// client is one logged-on SMB client on a share.
type client struct {
	conn *smb2.Conn
	sess *smb2.Session
	tree *smb2.Tree
}

func connect(t *testing.T, inst *samba.Instance, o smb2.Options) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := smb2.Dial(ctx, inst.Addr, o)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := c.SessionSetup(ctx, smb2.Credentials{User: inst.User, Password: inst.Password})
	if err != nil {
		t.Fatalf("session setup (dialect %v): %v", c.Dialect, err)
	}
	tr, err := s.TreeConnect(ctx, inst.Share)
	if err != nil {
		t.Fatalf("tree connect: %v", err)
	}
	return &client{conn: c, sess: s, tree: tr}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestSambaBasics(t *testing.T) {
	inst := sambatest.Start(t, samba.Options{})
	for _, d := range []smb2.Dialect{smb2.Dialect311, smb2.Dialect210} {
		t.Run(d.String(), func(t *testing.T) {
			c := connect(t, inst, smb2.Options{Dialects: []smb2.Dialect{d}})
			if c.conn.Dialect != d {
				t.Fatalf("dialect %v, want %v", c.conn.Dialect, d)
			}
			ctx := ctxT(t)
			f, err := c.tree.OpenFile(ctx, "basics-"+d.String(), smb2.GenericRead|smb2.GenericWrite, smb2.ShareAll, smb2.FileOverwriteIf)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(ctx, 0, []byte("hello")); err != nil {
				t.Fatal(err)
			}
			got, err := f.Read(ctx, 0, 100)
			if err != nil || string(got) != "hello" {
				t.Fatalf("read %q, %v", got, err)
			}
			if err := f.Close(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}
