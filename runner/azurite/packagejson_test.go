package azurite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stormcheck/stormcheck/internal/boundedread"
)

// TestPackageVersionIsBounded: a package.json past maxPackageJSONBytes, or
// /dev/zero in its place, is refused, not read whole (binVersion then asks
// the binary).
func TestPackageVersionIsBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "package.json")
	if err := os.WriteFile(p, []byte(`{"name": "azurite", "version": "3.37.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err := packageVersion(p); err != nil || v != "3.37.0" {
		t.Fatalf("%q, %v", v, err)
	}
	if err := os.Truncate(p, maxPackageJSONBytes+1); err != nil {
		t.Fatal(err)
	}
	if _, err := packageVersion(p); boundedread.As(err) == nil || boundedread.As(err).Size != maxPackageJSONBytes+1 {
		t.Errorf("past its bound: %v", err)
	}
	os.Remove(p)
	if err := os.Symlink("/dev/zero", p); err != nil {
		t.Fatal(err)
	}
	if _, err := packageVersion(p); boundedread.As(err) == nil || boundedread.As(err).Size != -1 {
		t.Errorf("/dev/zero: %v", err)
	}
}
