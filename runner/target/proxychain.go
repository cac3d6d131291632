package target

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/connstr"
	"github.com/stormcheck/stormcheck/runner/faults"
)

// proxyChain starts what stands between the SDK and the service's
// endpoints in inst: the throttling emulation and the HTTP fault stages
// (one loopback proxy), then Toxiproxy for network faults, as the options
// ask. It returns the URLs the clients use and what to add to the target's
// description. On error the target is closed.
func (t *Target) proxyChain(ctx context.Context, o Options, inst *azurite.Instance) (blobURL, queueURL, tableURL, desc string, err error) {
	blobURL, queueURL, tableURL = inst.BlobURL, inst.QueueURL, inst.TableURL
	if o.Emulation != nil || (o.Faults != nil && o.Faults.HasHTTP()) {
		if t.proxy, err = startEmulation(ctx, o, inst); err != nil {
			t.Close()
			return "", "", "", "", err
		}
		blobURL, queueURL, tableURL = t.proxy.BlobURL, t.proxy.QueueURL, t.proxy.TableURL
		if o.Emulation != nil {
			desc += " behind the throttling emulation (" + HostOf(blobURL) + ")"
		} else {
			desc += " behind the fault proxy (" + HostOf(blobURL) + ")"
		}
	}
	if o.Faults != nil && o.Faults.HasNet() {
		net, urls, nerr := faults.StartNetwork(map[string]string{"blob": blobURL, "queue": queueURL, "table": tableURL})
		if nerr != nil {
			t.Close()
			return "", "", "", "", nerr
		}
		t.Network = net
		blobURL, queueURL, tableURL = urls["blob"], urls["queue"], urls["table"]
		desc += " through Toxiproxy (" + HostOf(blobURL) + ")"
	}
	return blobURL, queueURL, tableURL, desc, nil
}

// connectionStringThroughFaults opens a connection-string target through
// the fault proxies, as a managed Azurite's: the shards of one run share
// one Azurite by connection string, and a broken promise or a fault must
// reach each shard's traffic. Faults only ever send traffic to loopback:
// the connection string must carry the account's key and name loopback
// endpoints (an Azurite of your own).
func (t *Target) connectionStringThroughFaults(ctx context.Context, p *connstr.Parsed, o Options, opts *service.ClientOptions, hc *http.Client) error {
	if p.Auth != connstr.SharedKey {
		return fmt.Errorf("target connection-string: the scenario's faults need a connection string with AccountName and AccountKey (an Azurite of your own), to run its traffic through the fault proxy")
	}
	inst := &azurite.Instance{Account: p.AccountName, Key: p.AccountKey}
	uses := o.Uses | connstr.Of(connstr.Blob) // (readConnectionString saw each has an endpoint)
	for s, u := range map[connstr.Service]*string{connstr.Blob: &inst.BlobURL, connstr.Queue: &inst.QueueURL, connstr.Table: &inst.TableURL} {
		if uses.Has(s) {
			*u, _, _ = p.Endpoint(s)
		}
	}
	for _, u := range []string{inst.BlobURL, inst.QueueURL, inst.TableURL} {
		if u != "" && !loopbackURL(u) {
			return fmt.Errorf("target connection-string: faults are injected on loopback only; endpoint %s is not 127.0.0.1, ::1 or localhost", HostOf(u))
		}
	}
	o.Faults.SetAccount(inst.Account, inst.Key) // a broken promise re-signs what it changes
	blobURL, queueURL, tableURL, desc, err := t.proxyChain(ctx, o, inst)
	if err != nil {
		return err
	}
	t.Desc = "connection string (" + HostOf(inst.BlobURL) + ")" + desc
	t.Blob, err = SharedKeyBlobClient(blobURL, inst.Account, inst.Key, opts)
	if err != nil {
		return redactedErr("target connection-string", err)
	}
	t.sharedKeyServices(tableURL, queueURL, inst.Account, inst.Key, hc)
	return nil
}

// loopbackURL reports whether u's host is a loopback address.
func loopbackURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	h := p.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
