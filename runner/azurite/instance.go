package azurite

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/stormcheck/stormcheck/internal/procgroup"
)

// Instance is a running Azurite started by Start. Its exported fields are
// read-only. Key is a secret by convention: never print it (String and
// GoString leave it out).
type Instance struct {
	// BlobURL, QueueURL and TableURL are path-style service URLs, e.g.
	// http://127.0.0.1:PORT/devstoreaccount1 (https in OAuth mode).
	BlobURL, QueueURL, TableURL string
	// Account and Key are the shared-key credentials (DevAccount and its key).
	Account, Key string
	// LogPath is the file receiving Azurite's stdout and stderr; Stop keeps it.
	LogPath string
	// WorkDir contains the data workspace (removed by Stop) and, by
	// default, the log.
	WorkDir string
	// PID is Azurite's process id, which is also its process group id.
	PID int
	// OAuth reports whether the instance was started in OAuth/HTTPS mode.
	OAuth bool

	stopTimeout time.Duration
	httpClient  *http.Client
	proc        *procgroup.Process
	sink        *logSink
	dataDir     string

	stopOnce sync.Once
	stopErr  error

	// bin and opts start the process again after Halt (see Restart);
	// life serialises Halt, Restart and Stop; paused is set between Pause
	// and Resume.
	bin    string
	opts   Options
	life   sync.Mutex
	paused bool
}

// HTTPClient returns an http.Client for talking to the instance: it never
// uses a proxy and, in OAuth mode, trusts Options.CertPEM (and nothing
// else). Pass it as azcore.ClientOptions.Transport.
func (i *Instance) HTTPClient() *http.Client { return i.httpClient }

// Done is closed when the Azurite process has exited, whether through Stop
// or on its own (a crash mid-run).
func (i *Instance) Done() <-chan struct{} { return i.proc.Done() }

// ConnectionString returns the standard Azurite connection string with
// explicit BlobEndpoint, QueueEndpoint and TableEndpoint. It contains the
// account key: callers must never print or log it.
func (i *Instance) ConnectionString() string {
	proto := "http"
	if i.OAuth {
		proto = "https"
	}
	return fmt.Sprintf("DefaultEndpointsProtocol=%s;AccountName=%s;AccountKey=%s;BlobEndpoint=%s;QueueEndpoint=%s;TableEndpoint=%s;",
		proto, i.Account, i.Key, i.BlobURL, i.QueueURL, i.TableURL)
}

// String describes the instance without its key.
func (i *Instance) String() string {
	return fmt.Sprintf("azurite(pid %d, blob %s, queue %s, table %s, log %s)", i.PID, i.BlobURL, i.QueueURL, i.TableURL, i.LogPath)
}

// GoString is String, so that %#v does not print the key either.
func (i *Instance) GoString() string { return i.String() }
