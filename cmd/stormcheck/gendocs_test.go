package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	_ "github.com/stormcheck/stormcheck/checks/checkers"
	"github.com/stormcheck/stormcheck/reports"
)

var updateDocs = flag.Bool("update", false, "rewrite the generated reference pages under docs/reference (what go generate runs)")

// repoRoot is the repository's root, from this package's directory.
const repoRoot = "../.."

// TestGeneratedDocsAreCurrent: every page under docs/reference is exactly
// what the code generates now, and there is no page the code no longer
// makes (a command removed or renamed). With -update it rewrites them.
func TestGeneratedDocsAreCurrent(t *testing.T) {
	want, err := generatedDocs()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(repoRoot, filepath.FromSlash(referenceDir))
	onDisk := map[string]bool{}
	if err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == dir {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			onDisk[filepath.ToSlash(rel)] = true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if *updateDocs {
		for name, b := range want {
			dest := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := reports.WriteFileAtomic(dest, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
				t.Fatal(err)
			}
		}
		for name := range onDisk {
			if _, ok := want[name]; !ok {
				if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
					t.Fatal(err)
				}
			}
		}
		return
	}
	var stale []string
	for name, b := range want {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		switch {
		case err != nil:
			stale = append(stale, fmt.Sprintf("%s/%s is missing", referenceDir, name))
		case !bytes.Equal(got, b):
			stale = append(stale, fmt.Sprintf("%s/%s differs from what the code generates now", referenceDir, name))
		}
	}
	for name := range onDisk {
		if _, ok := want[name]; !ok {
			stale = append(stale, fmt.Sprintf("%s/%s is no longer generated (a command or page removed)", referenceDir, name))
		}
	}
	slices.Sort(stale)
	for _, s := range stale {
		t.Error(s)
	}
	if len(stale) > 0 {
		t.Errorf("the generated reference is stale: run %s and commit docs/reference", regenerate)
	}
}

// TestGeneratedDocsDependOnNothingLocal: the pages are the same whoever
// makes them, wherever and whenever: no home directory, working or
// temporary directory, host name or today's date in them, and
// the same bytes with another HOME, TMPDIR and working directory.
func TestGeneratedDocsDependOnNothingLocal(t *testing.T) {
	first, err := generatedDocs()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	host, _ := os.Hostname()
	// The CLI pages are made in a temporary directory (stormcheck-gendocs-*).
	local := []string{wd, os.Getenv("HOME"), host, "stormcheck-gendocs-", time.Now().UTC().Format("2006-01-02"),
		time.Now().Format("2-Jan-2006"), "Auto generated"}
	for name, b := range first {
		for _, s := range local {
			if len(s) > 5 && bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %q, which depends on where or when it was made", name, s)
			}
		}
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("TMPDIR", t.TempDir())
	t.Chdir(t.TempDir())
	second, err := generatedDocs()
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != len(second) {
		t.Fatalf("%d pages, then %d elsewhere", len(first), len(second))
	}
	for name, b := range first {
		if !bytes.Equal(b, second[name]) {
			t.Errorf("%s differs when made with another HOME, TMPDIR and working directory", name)
		}
	}
}

// markdownFiles lists README.md and every page under docs/, relative to
// the repository's root.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(repoRoot, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	mdLink    = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	mdHeading = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*\s*$`)
	mdInline  = regexp.MustCompile("`[^`]*`")
	mdLinkTxt = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	htmlID    = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
)

// prose splits a markdown file into its lines outside fenced code blocks,
// with their line numbers.
func prose(text string) (lines []string, numbers []int) {
	fence := ""
	for i, l := range strings.Split(text, "\n") {
		trim := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(trim, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~") {
			fence = trim[:3]
			continue
		}
		lines = append(lines, l)
		numbers = append(numbers, i+1)
	}
	return lines, numbers
}

// anchors are the fragments GitHub makes for a file's headings (a repeated
// heading gets -1, -2...) and its explicit <a id>s.
func anchors(text string) map[string]bool {
	out, count := map[string]bool{}, map[string]int{}
	lines, _ := prose(text)
	for _, l := range lines {
		if m := mdHeading.FindStringSubmatch(l); m != nil {
			h := mdLinkTxt.ReplaceAllString(m[1], "$1")
			h = strings.NewReplacer("`", "", "*", "").Replace(h)
			a := anchor(h)
			if n := count[a]; n > 0 {
				out[fmt.Sprintf("%s-%d", a, n)] = true
			} else {
				out[a] = true
			}
			count[a]++
		}
		for _, m := range htmlID.FindAllStringSubmatch(l, -1) {
			out[m[1]] = true
		}
	}
	return out
}

// TestDocLinksResolve: every relative link and image in README.md and
// docs/ names a file of the repository, and a #fragment names a heading of
// the page it points at.
func TestDocLinksResolve(t *testing.T) {
	texts := map[string]string{}
	read := func(rel string) (string, bool) {
		if s, ok := texts[rel]; ok {
			return s, true
		}
		b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(rel)))
		if err != nil {
			return "", false
		}
		texts[rel] = string(b)
		return string(b), true
	}
	n := 0
	for _, file := range markdownFiles(t) {
		text, _ := read(file)
		lines, numbers := prose(text)
		for i, l := range lines {
			l = mdInline.ReplaceAllString(l, "``")
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				n++
				where := fmt.Sprintf("%s:%d: link %q", file, numbers[i], target)
				p, frag, _ := strings.Cut(target, "#")
				dest := file
				if p != "" {
					dest = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(file), filepath.FromSlash(p))))
					if dest == ".." || strings.HasPrefix(dest, "../") || filepath.IsAbs(p) {
						t.Errorf("%s leaves the repository", where)
						continue
					}
					if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(dest))); err != nil {
						t.Errorf("%s: %s does not exist", where, dest)
						continue
					}
				}
				if frag == "" || !strings.HasSuffix(dest, ".md") {
					continue
				}
				destText, _ := read(dest)
				if !anchors(destText)[frag] {
					t.Errorf("%s: %s has no heading with the anchor #%s", where, dest, frag)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no relative link found: the link reader is broken")
	}
}

// TestLinkReader: the link and anchor readers find what GitHub would, so
// that TestDocLinksResolve can fail.
func TestLinkReader(t *testing.T) {
	text := "# Faults (`faults:`)\n\n## Shards: one run\n\n## Shards: one run\n\n```\n## not a heading\n[x](nowhere.md)\n```\n" +
		"See [a](docs/x.md#faults-faults) and ![b](docs/r.png \"t\") and `[c](code.md)`.\n"
	got := anchors(text)
	for _, a := range []string{"faults-faults", "shards-one-run", "shards-one-run-1"} {
		if !got[a] {
			t.Errorf("anchor %s not found in %v", a, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a heading inside a code block was read")
	}
	lines, _ := prose(text)
	var links []string
	for _, l := range lines {
		for _, m := range mdLink.FindAllStringSubmatch(mdInline.ReplaceAllString(l, "``"), -1) {
			links = append(links, m[1])
		}
	}
	if want := []string{"docs/x.md#faults-faults", "docs/r.png"}; !slices.Equal(links, want) {
		t.Errorf("links %q, want %q", links, want)
	}
}

// TestREADMEIsAFrontDoor: the README stays short, starts with the two
// commands as CI runs them, and reads as user documentation.
func TestREADMEIsAFrontDoor(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n >= 400 {
		t.Errorf("README.md has %d lines; keep it under 400 and move the rest to a page under docs/", n)
	}
	// The checks table names every check stormcheck has.
	for _, name := range checks.Names() {
		if !strings.Contains(readme, "`"+name+"`") {
			t.Errorf("README.md's checks table does not name the check %s", name)
		}
	}
	ci, err := os.ReadFile(filepath.Join(repoRoot, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	// .ci/run runs the test command inside { ...; } to keep its output
	ciCmd := regexp.MustCompile(`(?m)^\{ (go vet [^;]*); \}`).FindStringSubmatch(string(ci))
	if ciCmd == nil {
		t.Fatalf(".ci/run has no line `{ go vet ...; }` running the test command:\n%s", ci)
	}
	for _, cmd := range []string{"go run ./cmd/stormcheck run scenarios/examples/quickstart.yaml", ciCmd[1]} {
		if !strings.Contains(readme, "```sh\n"+cmd+"\n```") {
			t.Errorf("README.md does not show, in a sh block of its own, the command %q", cmd)
		}
	}
}

// labNotes are what user documentation does not hold: test names, commit
// hashes, load averages, clock times, and history ("it used to").
var labNotes = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`\b(Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]+`), "a test name"},
	{regexp.MustCompile(`\b(?:[0-9a-f]{7}|[0-9a-f]{40})\b`), "a commit hash"},
	{regexp.MustCompile(`(?i)load average`), "a load average"},
	{regexp.MustCompile(`\b\d{1,2}:\d{2}(:\d{2})?\s*UTC\b`), "a clock time"},
	{regexp.MustCompile(`(?i)\bused to\b|before this change|\bit was\b.*\bnow\b`), "history"},
}

var hexLetter, hexDigit = regexp.MustCompile(`[a-f]`), regexp.MustCompile(`[0-9]`)

// labNotesIn lists the lab notes in a line, each as what it is and the
// text found.
func labNotesIn(line string) []string {
	var out []string
	for _, n := range labNotes {
		for _, m := range n.re.FindAllString(line, -1) {
			if n.what == "a commit hash" && (!hexLetter.MatchString(m) || !hexDigit.MatchString(m)) {
				continue // a number, or a word of hex letters
			}
			out = append(out, fmt.Sprintf("%s (%q)", n.what, m))
		}
	}
	return out
}

// userDocExempt are pages for contributors or records of measurements,
// where test names, commits and machine conditions belong.
var userDocExempt = []string{"docs/architecture.md", "docs/benchmarks.md", "docs/contributing.md", "docs/mutation.md"}

// TestUserDocsHoldNoLabNotes: README.md and the guide pages say what
// stormcheck does now, for a user.
func TestUserDocsHoldNoLabNotes(t *testing.T) {
	for _, file := range markdownFiles(t) {
		if slices.Contains(userDocExempt, file) || strings.HasPrefix(file, referenceDir+"/") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(b), "\n") {
			for _, n := range labNotesIn(l) {
				t.Errorf("%s:%d: %s: user docs say what stormcheck does now; history and measurements go to commit messages and docs/benchmarks.md", file, i+1, n)
			}
		}
	}
}

// TestLabNotesAreFound: the patterns TestUserDocsHoldNoLabNotes uses catch
// what they are for, and leave run ids, sizes and example instants alone.
func TestLabNotesAreFound(t *testing.T) {
	for _, bad := range []string{"held by TestOpenLoopStops", "measured at dc0b935", "at load average 15", "on 2026-11-24 16:35 UTC",
		"it used to say so", "before this change, it hung"} {
		if len(labNotesIn(bad)) == 0 {
			t.Errorf("%q: no lab note found", bad)
		}
	}
	for _, good := range []string{"--run-id 1a2b3c4d", "payload_bytes: 1048576", "--start-at 2026-11-24T12:00:00Z", "started HH:MM:SS UTC",
		"a block that no longer decodes", "run 5b0e3f6a"} {
		if f := labNotesIn(good); len(f) > 0 {
			t.Errorf("%q: read as %v", good, f)
		}
	}
}
