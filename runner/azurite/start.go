package azurite

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/stormcheck/stormcheck/internal/procgroup"
)

// Start ensures Azurite is installed (see Ensure), starts it on 127.0.0.1
// with kernel-chosen ports for blob, queue and table and a private disk
// workspace, and returns once each service answers a shared-key
// authenticated request, or fails after Options.StartTimeout. On failure the
// process is stopped and the error ends with the last lines of its log.
//
// ctx bounds only the start-up (including any npm install); the instance
// lives until Stop. The caller must call Stop.
func Start(ctx context.Context, opts Options) (*Instance, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	bin, err := Ensure(ctx, o)
	if err != nil {
		return nil, err
	}
	hc, err := newHTTPClient(o)
	if err != nil {
		return nil, err
	}
	workDir := o.WorkDir
	if workDir == "" {
		workDir, err = os.MkdirTemp("", "stormcheck-azurite-")
	} else {
		err = os.MkdirAll(workDir, 0o755)
	}
	if err != nil {
		return nil, fmt.Errorf("azurite: work dir: %w", err)
	}
	if workDir, err = filepath.Abs(workDir); err != nil {
		return nil, fmt.Errorf("azurite: work dir: %w", err)
	}
	dataDir, err := os.MkdirTemp(workDir, "data-")
	if err != nil {
		return nil, fmt.Errorf("azurite: work dir: %w", err)
	}
	logPath := o.LogPath
	if logPath == "" {
		logPath = filepath.Join(workDir, "azurite.log")
	}
	if ctx.Err() != nil { // interrupted before anything was started
		os.RemoveAll(dataDir)
		return nil, interrupted(ctx, "before Azurite was started")
	}
	sink, w, err := newLogSink(logPath)
	if err != nil {
		os.RemoveAll(dataDir)
		return nil, fmt.Errorf("azurite: log: %w", err)
	}
	go sink.run()
	p, err := procgroup.Start(bin, azuriteArgs(o, dataDir), childEnv(), dataDir, w)
	w.Close() // the child has its copy; EOF comes when it (and any child) exits
	if err != nil {
		sink.close(0)
		os.RemoveAll(dataDir)
		return nil, fmt.Errorf("azurite: start %s: %w", bin, err)
	}
	inst := &Instance{
		Account:     DevAccount,
		Key:         devAccountKey,
		LogPath:     logPath,
		WorkDir:     workDir,
		PID:         p.PID,
		OAuth:       o.OAuth,
		stopTimeout: o.StopTimeout,
		httpClient:  hc,
		proc:        p,
		sink:        sink,
		dataDir:     dataDir,
		bin:         bin,
		opts:        o,
	}
	if err := inst.await(ctx, o); err != nil {
		inst.Stop()
		if ctx.Err() != nil { // the caller gave up (Ctrl-C), not Azurite
			return nil, interrupted(ctx, "while Azurite was starting; it was stopped")
		}
		return nil, fmt.Errorf("azurite: %w\nlast lines of %s:\n%s", err, logPath, sink.lastLines())
	}
	hc.CloseIdleConnections()
	return inst, nil
}

// await waits for the ports and then for readiness, giving up early if the
// process exits.
func (i *Instance) await(ctx context.Context, o Options) error {
	ctx, cancel := context.WithTimeoutCause(ctx, o.StartTimeout,
		fmt.Errorf("not ready within StartTimeout %s", o.StartTimeout))
	defer cancel()
	ctx, cancelExit := context.WithCancelCause(ctx)
	defer cancelExit(nil)
	p := i.proc // Restart replaces i.proc: this goroutine watches this one
	go func() {
		select {
		case <-p.Done():
			cancelExit(fmt.Errorf("process exited during start (%v)", p.Err()))
		case <-ctx.Done():
		}
	}()

	addrs, err := waitListening(ctx, i.sink, p)
	if err != nil {
		return err
	}
	want := "http"
	if o.OAuth {
		want = "https"
	}
	urls := map[string]*string{"Blob": &i.BlobURL, "Queue": &i.QueueURL, "Table": &i.TableURL}
	for svc, a := range addrs {
		if a.scheme != want {
			return fmt.Errorf("%s service listens with %s, want %s", svc, a.scheme, want)
		}
		*urls[svc] = fmt.Sprintf("%s://127.0.0.1:%s/%s", a.scheme, a.port, DevAccount)
	}
	return waitReady(ctx, i)
}

// azuriteArgs is Azurite's command line: loopback only, port 0 everywhere,
// disk persistence in dataDir (in-memory persistence stalls all ports for
// long GC pauses after heavy churn), API-version check off (the Go SDK is
// newer than Azurite) and no telemetry (on the releases that have the
// option: see optionSince).
func azuriteArgs(o Options, dataDir string) []string {
	a := []string{
		"--blobHost", "127.0.0.1", "--blobPort", "0",
		"--queueHost", "127.0.0.1", "--queuePort", "0",
		"--tableHost", "127.0.0.1", "--tablePort", "0",
		"--location", dataDir,
		"--skipApiVersionCheck",
	}
	if knowsOption(o.Version, "--disableTelemetry") {
		a = append(a, "--disableTelemetry")
	}
	if o.OAuth {
		a = append(a, "--oauth", "basic", "--cert", o.CertPEM, "--key", o.KeyPEM)
	}
	return append(a, o.ExtraArgs...)
}

// childEnv is our environment without AZURITE_ACCOUNTS, which would replace
// the devstoreaccount1 account that Instance advertises.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AZURITE_ACCOUNTS=") {
			env = append(env, kv)
		}
	}
	return env
}

// newHTTPClient returns a proxy-free client; in OAuth mode it trusts
// exactly o.CertPEM.
func newHTTPClient(o Options) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	if o.OAuth {
		pem, err := os.ReadFile(o.CertPEM)
		if err != nil {
			return nil, fmt.Errorf("azurite: cert: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, errors.New("azurite: cert: no PEM certificate in " + o.CertPEM)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: tr}, nil
}

// interrupted is Start's error when its context ended: the start-up was
// interrupted (Ctrl-C, or the caller's own deadline), which says nothing
// about Azurite. It wraps the context's cause.
func interrupted(ctx context.Context, when string) error {
	return fmt.Errorf("azurite: start-up interrupted %s: %w", when, context.Cause(ctx))
}
