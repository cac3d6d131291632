package smb2

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Tree is a connected share.
type Tree struct {
	s             *Session
	ID            uint32
	Share         string
	ShareFlags    uint32
	MaximalAccess uint32
	encrypt       bool
}

// Session is the tree's session.
func (t *Tree) Session() *Session { return t.s }

func (t *Tree) params() sendParams {
	p := t.s.params(t.ID)
	p.encrypt = t.encrypt
	return p
}

func (t *Tree) do(ctx context.Context, req Request, ok ...Status) (*response, error) {
	r, _, err := t.s.conn.roundTrip(ctx, req, t.params())
	if err != nil {
		return nil, err
	}
	return r, statusErr(r, req.Command(), ok...)
}

// Disconnect disconnects the tree.
func (t *Tree) Disconnect(ctx context.Context) error {
	_, err := t.do(ctx, TreeDisconnectRequest)
	return err
}

// File is an open handle.
type File struct {
	t    *Tree
	ID   FileID
	Name string
	// Create is the server's CREATE response (attributes, sizes, the
	// granted oplock level and lease).
	Create *CreateResponse
}

// Tree is the file's tree.
func (f *File) Tree() *Tree { return f.t }

// Create sends CREATE exactly as req says (the name is relative to the
// share; forward slashes become backslashes).
func (t *Tree) Create(ctx context.Context, req CreateRequest) (*File, error) {
	req.Name = strings.TrimLeft(strings.ReplaceAll(req.Name, "/", `\`), `\`)
	if req.ImpersonationLevel == 0 {
		req.ImpersonationLevel = ImpersonationImpersonation
	}
	r, err := t.do(ctx, &req)
	if err != nil {
		return nil, err
	}
	cr, err := UnmarshalCreateResponse(r.body)
	if err != nil {
		return nil, err
	}
	return &File{t: t, ID: cr.FileID, Name: req.Name, Create: cr}, nil
}

// OpenFile opens name with the given access and share access, creating it
// per disposition, with no lease.
func (t *Tree) OpenFile(ctx context.Context, name string, access, share uint32, disp CreateDisposition) (*File, error) {
	return t.Create(ctx, CreateRequest{
		DesiredAccess:  access,
		ShareAccess:    share,
		Disposition:    disp,
		FileAttributes: FileAttributeNormal,
		CreateOptions:  FileNonDirectoryFile,
		Name:           name,
	})
}

// Remove deletes a file (opens it for delete on close and closes it).
func (t *Tree) Remove(ctx context.Context, name string) error {
	f, err := t.Create(ctx, CreateRequest{
		DesiredAccess: Delete | FileReadAttributes,
		ShareAccess:   ShareAll,
		Disposition:   FileOpen,
		CreateOptions: FileDeleteOnClose,
		Name:          name,
	})
	if err != nil {
		return err
	}
	return f.Close(ctx)
}

// ReadDir lists a directory (FileDirectoryInformation), without "." and "..".
func (t *Tree) ReadDir(ctx context.Context, dir string) ([]DirEntry, error) {
	d, err := t.Create(ctx, CreateRequest{
		DesiredAccess: FileReadData | FileReadAttributes | Synchronize,
		ShareAccess:   ShareAll,
		Disposition:   FileOpen,
		CreateOptions: FileDirectoryFile,
		Name:          dir,
	})
	if err != nil {
		return nil, err
	}
	defer d.Close(context.WithoutCancel(ctx))
	var out []DirEntry
	flags := RestartScans
	for {
		r, err := t.do(ctx, &QueryDirectoryRequest{
			InfoClass:          FileDirectoryInformationClass,
			Flags:              flags,
			FileID:             d.ID,
			Pattern:            "*",
			OutputBufferLength: t.s.conn.MaxTransactSize,
		})
		if IsStatus(err, StatusNoMoreFiles) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		buf, err := UnmarshalQueryDirectoryResponse(r.body)
		if err != nil {
			return nil, err
		}
		es, err := ParseDirectoryInformation(buf)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if e.Name != "." && e.Name != ".." {
				out = append(out, e)
			}
		}
		flags = 0
	}
}

// AckBreak acknowledges a break notification: a lease break with the
// state the server asks for (when it asks for an acknowledgement), an
// oplock break with the new level. It returns the lease state now held.
func (t *Tree) AckBreak(ctx context.Context, b *Break) (LeaseState, error) {
	switch {
	case b.Lease != nil:
		if !b.Lease.AckRequired() {
			return b.Lease.NewState, nil
		}
		return t.AckLeaseBreak(ctx, b.Lease.Key, b.Lease.NewState)
	case b.Oplock != nil:
		ack := OplockBreakAck(*b.Oplock)
		_, err := t.do(ctx, &ack)
		return 0, err
	}
	return 0, errors.New("smb2: empty break")
}

// AckLeaseBreak acknowledges a lease break with state.
func (t *Tree) AckLeaseBreak(ctx context.Context, key [16]byte, state LeaseState) (LeaseState, error) {
	r, err := t.do(ctx, &LeaseBreakAck{Key: key, State: state})
	if err != nil {
		return 0, err
	}
	_, st, err := UnmarshalLeaseBreakAckResponse(r.body)
	return st, err
}

// Close closes the handle.
func (f *File) Close(ctx context.Context) error {
	_, err := f.t.do(ctx, &CloseRequest{FileID: f.ID})
	return err
}

// Read reads up to n bytes at off (n at most the connection's
// MaxReadSize). At or past the end of the file it returns
// STATUS_END_OF_FILE as an *Error.
func (f *File) Read(ctx context.Context, off uint64, n int) ([]byte, error) {
	if n <= 0 || uint32(n) > f.t.s.conn.MaxReadSize {
		return nil, fmt.Errorf("smb2: read of %d bytes (the limit is %d)", n, f.t.s.conn.MaxReadSize)
	}
	r, err := f.t.do(ctx, &ReadRequest{Length: uint32(n), Offset: off, FileID: f.ID})
	if err != nil {
		return nil, err
	}
	rr, err := UnmarshalReadResponse(r.body)
	if err != nil {
		return nil, err
	}
	return rr.Data, nil
}

// Write writes data at off in one WRITE (len(data) at most the
// connection's MaxWriteSize) and returns the count the server wrote.
func (f *File) Write(ctx context.Context, off uint64, data []byte) (int, error) {
	if uint32(len(data)) > f.t.s.conn.MaxWriteSize {
		return 0, fmt.Errorf("smb2: write of %d bytes (the limit is %d)", len(data), f.t.s.conn.MaxWriteSize)
	}
	r, err := f.t.do(ctx, &WriteRequest{Offset: off, FileID: f.ID, Data: data})
	if err != nil {
		return 0, err
	}
	wr, err := UnmarshalWriteResponse(r.body)
	if err != nil {
		return 0, err
	}
	return int(wr.Count), nil
}

// Flush asks the server to flush the file.
func (f *File) Flush(ctx context.Context) error {
	_, err := f.t.do(ctx, &FlushRequest{FileID: f.ID})
	return err
}

// Lock takes or releases byte-range locks in one LOCK request. Without
// LockFailImmediately a conflicting lock waits at the server (the server
// answers STATUS_PENDING first; see Trace.Pending) until it is granted or
// ctx ends, which cancels it.
func (f *File) Lock(ctx context.Context, locks ...LockElement) error {
	if len(locks) == 0 {
		return errors.New("smb2: LOCK with no ranges")
	}
	_, err := f.t.do(ctx, &LockRequest{FileID: f.ID, Locks: locks})
	return err
}

// Unlock releases the byte range [off, off+n).
func (f *File) Unlock(ctx context.Context, off, n uint64) error {
	return f.Lock(ctx, LockElement{Offset: off, Length: n, Flags: LockUnlock})
}

// SetDeleteOnClose sets or clears the delete disposition
// (FileDispositionInformation); the handle needs DELETE access.
func (f *File) SetDeleteOnClose(ctx context.Context, del bool) error {
	b := byte(0)
	if del {
		b = 1
	}
	_, err := f.t.do(ctx, &SetInfoRequest{InfoType: InfoFile, InfoClass: FileDispositionInformationClass, FileID: f.ID, Buffer: []byte{b}})
	return err
}

// Truncate sets the end of file (FileEndOfFileInformation).
func (f *File) Truncate(ctx context.Context, size uint64) error {
	_, err := f.t.do(ctx, &SetInfoRequest{InfoType: InfoFile, InfoClass: FileEndOfFileInformationClass, FileID: f.ID, Buffer: le.AppendUint64(nil, size)})
	return err
}

// Stat queries FileStandardInformation.
func (f *File) Stat(ctx context.Context) (StandardInfo, error) {
	r, err := f.t.do(ctx, &QueryInfoRequest{InfoType: InfoFile, InfoClass: FileStandardInformationClass, OutputBufferLength: 24, FileID: f.ID})
	if err != nil {
		return StandardInfo{}, err
	}
	buf, err := UnmarshalQueryInfoResponse(r.body)
	if err != nil {
		return StandardInfo{}, err
	}
	return ParseStandardInfo(buf)
}
