package shards

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
)

// DownloadShards brings back exactly what the shards uploaded, under
// dest/shard-I-of-N/; without a run id it takes the container's only run
// and, with several, names them; a blob that is no shard's result is
// refused, as is a container with nothing of the run.
func TestDownloadShards(t *testing.T) {
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	st := scenarios.Target{Kind: scenarios.TargetConnectionString}
	to := target.Options{ConnectionString: inst.ConnectionString()}
	src := t.TempDir()
	files := map[string]string{"summary.json": "{}", "hlog/w.blob.put.hlog": "#x\n", "hlog/corrected/w.blob.put.hlog": "#y\n"}
	for name, body := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		if _, err := Upload(ctx, st, to, "shards", Prefix("abcd0001", i, 2), src); err != nil {
			t.Fatal(err)
		}
	}
	dest := t.TempDir()
	dirs, runID, err := Download(ctx, st, to, "shards", "", dest)
	if err != nil || runID != "abcd0001" || len(dirs) != 2 || dirs[0] != filepath.Join(dest, "shard-0-of-2") {
		t.Fatalf("dirs %v run %q err %v", dirs, runID, err)
	}
	for _, d := range dirs {
		for name, body := range files {
			b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(name)))
			if err != nil || string(b) != body {
				t.Errorf("%s/%s: %q %v, want %q", d, name, b, err, body)
			}
		}
	}

	if _, err := Upload(ctx, st, to, "shards", Prefix("abcd0002", 0, 1), src); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Download(ctx, st, to, "shards", "", t.TempDir()); err == nil || !strings.Contains(err.Error(), "holds 2 runs (abcd0001, abcd0002): choose one with --run-id") {
		t.Errorf("two runs, no --run-id: %v", err)
	}
	if _, _, err := Download(ctx, st, to, "shards", "abcd0003", t.TempDir()); err == nil || !strings.Contains(err.Error(), "no shard of run abcd0003") {
		t.Errorf("a run not there: %v", err)
	}
	if _, err := Upload(ctx, st, to, "shards", "abcd0004/not-a-shard", src); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Download(ctx, st, to, "shards", "abcd0004", t.TempDir()); err == nil || !strings.Contains(err.Error(), "is not a shard's result") {
		t.Errorf("a foreign blob: %v", err)
	}
	if _, _, err := Download(ctx, st, to, "Bad_Name", "", t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a container name") {
		t.Errorf("bad container name: %v", err)
	}
}
