package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestKindsCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"kinds"}, &out, &errOut); code != exitOK || !strings.Contains(out.String(), "blob.lease-mutex\n") {
		t.Errorf("kinds: exit %d\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"kinds", "blob.lease-mutex"}, &out, &errOut); code != exitOK {
		t.Fatalf("kinds blob.lease-mutex: exit %d %s", code, errOut.String())
	}
	for _, want := range []string{
		"lease_duration  the lease each acquire asks for",
		"15s to 60s in whole seconds, or infinite; default 15s",
		"a fraction, 0 to 1; default 0",
		"ops it records (thresholds name them, e.g. p95(blob.get) < 50ms): blob.get, blob.lease.acquire, blob.lease.release, blob.put",
		"checks (run by default): no-lost-updates, lease-exclusion, lease-protocol",
		"stormcheck init blob.lease-mutex",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("kinds blob.lease-mutex lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"kinds", "table.batch"}, &out, &errOut); code != exitOK || !strings.Contains(out.String(), "a whole number, 1 to 1000; default 20, or batch_size if larger") {
		t.Errorf("kinds table.batch: exit %d\n%s", code, out.String())
	}
	errOut.Reset()
	code := run([]string{"kinds", "etag-counter"}, &out, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), `unknown kind "etag-counter"; nearest: blob.etag-counter, table.etag-counter`) {
		t.Errorf("unknown kind: exit %d\n%s", code, errOut.String())
	}
	if code := run([]string{"kinds", "a", "b"}, &out, &errOut); code != exitUsage {
		t.Errorf("two kinds: exit %d", code)
	}
}
