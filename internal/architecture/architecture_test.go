package architecture

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/stormcheck/stormcheck"

// row is one package's line of the map.
type row struct {
	line     int
	mayUse   []string // stormcheck packages, relative to the module
	azureSDK bool
}

// readMap parses the table of docs/architecture.md: | `pkg` | holds |
// may import | Azure SDK |.
func readMap(t *testing.T, path string) map[string]row {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]row{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 4 {
			t.Fatalf("%s:%d: a row has 4 cells (package, holds, may import, Azure SDK), got %d", path, n, len(cells))
		}
		pkg := strings.Trim(strings.TrimSpace(cells[0]), "`")
		if _, dup := rows[pkg]; dup {
			t.Fatalf("%s:%d: %s has two rows", path, n, pkg)
		}
		r := row{line: n}
		for _, p := range strings.Split(cells[2], ",") {
			p = strings.Trim(strings.TrimSpace(p), "`")
			if p != "" && p != "—" {
				r.mayUse = append(r.mayUse, p)
			}
		}
		switch strings.TrimSpace(cells[3]) {
		case "yes":
			r.azureSDK = true
		case "no":
		default:
			t.Fatalf("%s:%d: the Azure SDK cell of %s is yes or no, got %q", path, n, pkg, cells[3])
		}
		rows[pkg] = r
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no package rows", path)
	}
	return rows
}

// pkgInfo is what go list says of one package.
type pkgInfo struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func listPackages(t *testing.T, root string) []pkgInfo {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps=false", "-json=ImportPath,Imports,Deps", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkgInfo
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkgInfo
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// violations checks pkgs against the map and says every way they break it.
func violations(rows map[string]row, pkgs []pkgInfo) []string {
	var bad []string
	seen := map[string]bool{}
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		seen[rel] = true
		r, ok := rows[rel]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s has no row in docs/architecture.md", rel))
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			if !slices.Contains(r.mayUse, dep) {
				bad = append(bad, fmt.Sprintf("%s imports %s, which its row (docs/architecture.md:%d) does not allow", rel, dep, r.line))
			}
		}
		if !r.azureSDK {
			for _, d := range p.Deps {
				if strings.HasPrefix(d, "github.com/Azure/") {
					bad = append(bad, fmt.Sprintf("%s reaches the Azure SDK (%s), which its row (docs/architecture.md:%d) says it does not", rel, d, r.line))
					break
				}
			}
		}
	}
	for pkg, r := range rows {
		if !seen[pkg] {
			bad = append(bad, fmt.Sprintf("docs/architecture.md:%d names %s, which is not a package", r.line, pkg))
		}
	}
	slices.Sort(bad)
	return bad
}

// TestPackageMap: the module's packages and their imports are as the map
// in docs/architecture.md says.
func TestPackageMap(t *testing.T) {
	root, _ := filepath.Abs("../..")
	rows := readMap(t, filepath.Join(root, "docs", "architecture.md"))
	for _, v := range violations(rows, listPackages(t, root)) {
		t.Error(v)
	}
}

// TestPackageMapCatchesBreaks feeds the check a map and packages that break
// it in each way it knows, and sees each one said.
func TestPackageMapCatchesBreaks(t *testing.T) {
	rows := map[string]row{
		"checks":  {line: 1},
		"reports": {line: 2, mayUse: []string{"checks"}},
		"gone":    {line: 3},
	}
	pkgs := []pkgInfo{
		{ImportPath: module + "/checks", Imports: []string{module + "/reports"}},
		{ImportPath: module + "/reports", Imports: []string{module + "/checks", "fmt"}, Deps: []string{"github.com/Azure/azure-sdk-for-go/sdk/azcore"}},
		{ImportPath: module + "/newpkg"},
	}
	got := violations(rows, pkgs)
	want := []string{
		"checks imports reports, which its row (docs/architecture.md:1) does not allow",
		"docs/architecture.md:3 names gone, which is not a package",
		"newpkg has no row in docs/architecture.md",
		"reports reaches the Azure SDK (github.com/Azure/azure-sdk-for-go/sdk/azcore), which its row (docs/architecture.md:2) says it does not",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if v := violations(map[string]row{}, nil); len(v) != 0 {
		t.Errorf("empty: %q", v)
	}
}
