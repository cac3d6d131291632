package target

import (
	"errors"
	"net"
	"net/http"
	"net/url"

	fileservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/stormcheck/stormcheck/runner/connstr"
)

// The File service (Azure Files over REST) of a target. Only an account's
// file endpoint answers it: Azurite has no File service (Azurite issue
// #113) and a managed Samba speaks SMB alone, so on those targets Files
// says why there is no client and the files.rest-* kinds refuse to start.

// ErrNoFileService is in the chain of Files' error when the target has no
// File REST endpoint at all (Azurite, Samba): only an account can run the
// workload, which is a limit of the target, not a fault of the run.
var ErrNoFileService = errors.New("no File service")

// SMBLogon is how an SMB client reaches an account's file endpoint: the
// host on port 445, the account name as the user and the account key as
// the password (the Azure Files way for a storage account key). Password
// is a secret: never print it.
type SMBLogon struct {
	Addr, User, Password string
}

// String never holds the password.
func (l SMBLogon) String() string { return l.User + "@" + l.Addr }

// GoString never holds the password.
func (l SMBLogon) GoString() string { return "SMBLogon{" + l.String() + "}" }

// connectionStringFiles makes the File service client of a
// connection-string target from what runner/connstr read (never from the
// raw string): the endpoint the string names or derives, with the
// account's key or the SAS. With a key it also keeps the SMB logon of the
// same endpoint, for the workloads that mix SMB and REST.
func (t *Target) connectionStringFiles(p *connstr.Parsed, hc *http.Client) {
	u, err := p.ClientURL(connstr.File)
	if err != nil {
		t.FilesErr = errors.New("file service: the connection string " + err.Error())
		return
	}
	if _, named, _ := p.Endpoint(connstr.File); !named && emulatorString(p) {
		// An emulator's string (Azurite's names its loopback endpoints):
		// the derived file endpoint would be a public host of the account
		// name, and no emulator has a File service.
		t.FilesErr = noFiles("the connection string names an emulator's loopback endpoints and no FileEndpoint (no emulator has a File service)")
		return
	}
	opts := FileOptions(hc)
	if p.Auth == connstr.SharedKey {
		cred, cerr := fileservice.NewSharedKeyCredential(p.AccountName, p.AccountKey)
		if cerr != nil {
			t.FilesErr = redactedErr("file service", cerr)
			return
		}
		t.File, err = fileservice.NewClientWithSharedKeyCredential(u, cred, opts)
		if eu, perr := url.Parse(u); perr == nil && err == nil {
			t.FileSMB = &SMBLogon{Addr: net.JoinHostPort(eu.Hostname(), "445"), User: p.AccountName, Password: p.AccountKey}
		}
	} else {
		t.File, err = fileservice.NewClientWithNoCredential(u, opts)
	}
	if err != nil {
		t.File, t.FilesErr = nil, redactedErr("file service", err)
	}
}

// emulatorString reports whether p names a loopback endpoint (an
// emulator's string) or is UseDevelopmentStorage=true.
func emulatorString(p *connstr.Parsed) bool {
	if p.DevelopmentStorage || p.AccountName == connstr.DevAccount {
		return true
	}
	for _, s := range []connstr.Service{connstr.Blob, connstr.Queue, connstr.Table} {
		if u, named, _ := p.Endpoint(s); named && loopbackURL(u) {
			return true
		}
	}
	return false
}

// FileOptions are the File service client's options: the run's HTTP
// client, no SDK retries (every attempt is the harness's).
func FileOptions(hc *http.Client) *fileservice.ClientOptions {
	return &fileservice.ClientOptions{ClientOptions: clientOptions(hc)}
}

// Files returns the File service client, or why the target has none; the
// error matches ErrNoFileService when the target cannot have one.
func (t *Target) Files() (*fileservice.Client, error) {
	switch {
	case t.File != nil:
		return t.File, nil
	case t.FilesErr != nil:
		return nil, t.FilesErr
	case t.Samba != nil:
		return nil, noFiles("a managed Samba speaks SMB only, not the File REST API")
	case t.Azurite != nil:
		return nil, noFiles("Azurite has no File service (Azurite issue #113)")
	}
	return nil, noFiles("the target names no file endpoint")
}

func noFiles(why string) error {
	return &noFilesError{why + "; the File REST calls need an account's file endpoint: a connection string (target kind connection-string, or --connection-string) with AccountName and AccountKey, or FileEndpoint"}
}

type noFilesError struct{ msg string }

func (e *noFilesError) Error() string        { return e.msg }
func (e *noFilesError) Is(target error) bool { return target == ErrNoFileService }
