package target

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	fileservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/connstr"
	"github.com/stormcheck/stormcheck/runner/faults"
	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/runner/throttle"
	"github.com/stormcheck/stormcheck/scenarios"
)

// Target is an opened storage endpoint: the SDK clients a run uses and what
// must happen when the run is over.
type Target struct {
	// Desc describes the target for reports. It never holds a secret.
	Desc string
	Blob *service.Client
	// Table and Queue are the Table and Queue service clients; nil when the
	// target does not name that endpoint (TablesErr, QueuesErr say why).
	Table *aztables.ServiceClient
	Queue *azqueue.ServiceClient
	// TablesErr and QueuesErr explain a nil Table or Queue client.
	TablesErr, QueuesErr error
	// usedTables and usedQueues say whether a workload created tables or
	// queues, which cleanup then deletes.
	UsedTables, UsedQueues atomic.Bool
	// AzuriteLog is the managed Azurite's log file ("" for other targets).
	AzuriteLog string
	http       *http.Client
	reach      *reachability
	managed    bool
	Azurite    *azurite.Instance
	proxy      *throttle.Proxy
	// borrowed is set when the managed Azurite is the caller's
	// (TargetOptions.Azurite): Close leaves it running.
	borrowed bool
	// faults is the run's fault schedule (nil: no faults).
	Faults *faults.Schedule
	// network is the Toxiproxy stage of network faults (nil: none).
	Network *faults.Network
	// Samba is the managed Samba of a target of kind samba (nil for other
	// targets): the SMB workloads log on to it; Close stops it.
	Samba *samba.Instance
	// File is the File service (Azure Files REST) client of a target with
	// an account's file endpoint (nil otherwise: Files says why); FileSMB
	// is the SMB logon of the same endpoint (nil without an account key).
	File     *fileservice.Client
	FilesErr error
	FileSMB  *SMBLogon
	// raw signs raw conformance requests (nil: not an account-key target).
	raw *rawSigners
	// tableURL is the Table service endpoint of a Shared Key target
	// (aztables' client does not tell it), for raw table steps.
	tableURL string
	// SMBAddr is where the SMB workloads dial: the stages of the scenario's
	// faults in front of Samba, or Samba itself ("" for other targets).
	SMBAddr string
	// smbStream is the SMB stream stage of broken promises (nil: none).
	smbStream *faults.SMBStream
}

// Options are the command line's overrides of a scenario's target.
type Options struct {
	// ConnectionString, when set, wins over the scenario's target. Never
	// printed.
	ConnectionString string
	// Uses are the services the caller sends to (empty: Blob alone). A
	// connection string that gives one of them no endpoint is refused
	// (ErrBadConnectionString) before anything is sent.
	Uses connstr.Services
	// Credential overrides the Entra ID credential (tests use a token
	// credential against Azurite's OAuth mode).
	Credential azcore.TokenCredential
	// HTTPClient overrides the HTTP client (tests trust a test certificate).
	HTTPClient *http.Client
	// WorkDir holds the managed Azurite's workspace and log.
	WorkDir string
	// Progress receives "installing azurite..." and similar lines.
	Progress io.Writer
	// MaxConns sizes the connection pool (the run's total actors).
	MaxConns int
	// Emulation, when set, puts the throttling proxy (runner/throttle)
	// between the clients and a managed Azurite, enforcing Capacity.
	Emulation *scenarios.Emulation
	Capacity  scenarios.Capacity
	// Azurite, when set, is a managed Azurite the caller started and will
	// stop, used instead of starting one (the fault matrix runs a row of
	// cells on one instance).
	Azurite *azurite.Instance
	// Faults, when set, is the scenario's fault schedule: its HTTP faults
	// run as stages of the proxy chain in front of a managed Azurite.
	Faults *faults.Schedule
	// throttleClock, set by tests, is the throttling proxy's clock (nil:
	// real time), so that what it decides depends on the arrivals alone.
	ThrottleClock func() time.Time
}

// Open connects to the scenario's target, starting a managed Azurite
// when that is the target.
func Open(ctx context.Context, st scenarios.Target, o Options) (*Target, error) {
	hc := o.HTTPClient
	if hc == nil {
		hc = NewHTTPClient(max(o.MaxConns, 16))
	}
	reach := newReachability()
	hc = watchedClient(hc, reach)
	opts := &service.ClientOptions{ClientOptions: clientOptions(hc)}
	t := &Target{http: hc, reach: reach, Faults: o.Faults}
	var err error
	kind := st.Kind
	if o.ConnectionString != "" {
		kind = scenarios.TargetConnectionString
	}
	switch kind {
	case scenarios.TargetAzurite, "":
		inst := o.Azurite
		if inst == nil {
			var serr error
			inst, serr = azurite.Start(ctx, azurite.Options{Version: st.AzuriteVersion, WorkDir: o.WorkDir, Progress: o.Progress})
			if serr != nil {
				return nil, serr
			}
		} else {
			t.borrowed = true
		}
		t.Azurite, t.AzuriteLog, t.managed = inst, inst.LogPath, true
		if o.Faults != nil {
			o.Faults.SetAccount(inst.Account, inst.Key) // a broken promise re-signs what it changes
		}
		t.Desc = fmt.Sprintf("managed Azurite %s (%s)", st.AzuriteVersion, HostOf(inst.BlobURL))
		blobURL, queueURL, tableURL, desc, cerr := t.proxyChain(ctx, o, inst)
		if cerr != nil {
			return nil, cerr
		}
		t.Desc += desc
		t.Blob, err = SharedKeyBlobClient(blobURL, inst.Account, inst.Key, opts)
		t.setRawSigners(inst.Account, inst.Key)
		if err == nil {
			t.sharedKeyServices(tableURL, queueURL, inst.Account, inst.Key, hc)
		}
	case scenarios.TargetSamba:
		if err := t.openSamba(ctx, st, o); err != nil {
			return nil, err
		}
	case scenarios.TargetConnectionString:
		cs, from, env := connectionStringOf(st, o)
		if cs == "" {
			return nil, fmt.Errorf("target connection-string: environment variable %s is empty (set it, or pass --connection-string)", env)
		}
		p, cerr := readConnectionString(cs, from, o.Uses)
		if cerr != nil {
			return nil, cerr // bad input, not the harness (ErrBadConnectionString)
		}
		if o.Faults != nil && (o.Faults.HasHTTP() || o.Faults.HasNet()) {
			err = t.connectionStringThroughFaults(ctx, p, o, opts, hc)
			break
		}
		err = t.connectionStringClients(p, opts, hc)
	case scenarios.TargetAccountKey:
		key := os.Getenv(st.KeyEnv)
		if key == "" {
			return nil, fmt.Errorf("target account-key: environment variable %s is empty", st.KeyEnv)
		}
		t.Blob, err = SharedKeyBlobClient(st.BlobURL, st.Account, key, opts)
		if err != nil {
			return nil, fmt.Errorf("target account-key: %s", Redact(err.Error()))
		}
		t.Desc = "account " + st.Account + " (shared key, " + HostOf(st.BlobURL) + ")"
		t.setRawSigners(st.Account, key)
		t.sharedKeyServices(st.TableURL, st.QueueURL, st.Account, key, hc)
	case scenarios.TargetEntraID:
		cred := o.Credential
		if cred == nil {
			cred, err = azidentity.NewDefaultAzureCredential(nil)
			if err != nil {
				return nil, fmt.Errorf("target entra-id: %w", err)
			}
		}
		t.Blob, err = service.NewClient(st.BlobURL, cred, opts)
		t.Desc = "account " + st.Account + " (Entra ID, " + HostOf(st.BlobURL) + ")"
		t.tokenServices(st.TableURL, st.QueueURL, cred, hc)
	default:
		return nil, fmt.Errorf("unknown target kind %q", kind)
	}
	if o.Emulation != nil && t.proxy == nil && err == nil {
		t.Close()
		return nil, fmt.Errorf("emulation: the throttling proxy runs in front of a managed Azurite only (target kind azurite); this run's target is %s", kind)
	}
	if err != nil {
		t.Close()
		return nil, fmt.Errorf("target: %s", Redact(err.Error()))
	}
	return t, nil
}

// Managed reports whether the target is an Azurite the run started: its
// data goes with it, so nothing of the run can be left on it.
func (t *Target) Managed() bool { return t != nil && t.managed }

// Close stops a managed Azurite and releases connections. Safe to call twice.
func (t *Target) Close() error {
	if t.http != nil {
		t.http.CloseIdleConnections()
	}
	if t.Network != nil {
		t.Network.Stop()
		t.Network = nil
	}
	if t.smbStream != nil {
		t.smbStream.Stop()
		t.smbStream = nil
	}
	if t.proxy != nil {
		t.proxy.Close()
		t.proxy = nil
	}
	if t.Samba != nil {
		err := t.Samba.Stop()
		t.Samba = nil
		return err
	}
	if t.Azurite != nil && t.borrowed {
		t.Azurite = nil // the caller's: it stops it
	}
	if t.Azurite != nil {
		err := t.Azurite.Stop()
		t.Azurite = nil
		return err
	}
	return nil
}

func HostOf(u string) string {
	s := strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	if i := strings.IndexAny(s, "/?"); i >= 0 {
		s = s[:i]
	}
	return s
}
