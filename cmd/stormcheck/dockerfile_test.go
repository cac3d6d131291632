package main

import (
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/kube"
)

// The Dockerfile cannot be built here (no Docker daemon), so this test
// reads it and does what its build stage does: it makes the build context
// that .dockerignore leaves, runs the stage's exact `go build` command
// there, and checks that the binary is static and runs. It also checks the
// stages: golang at the go.mod toolchain, a distroless (or scratch) final
// stage, the non-root user the manifests of `stormcheck kube` run as, and
// the entrypoint.

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	line int
	cmd  string // upper case: FROM, RUN, ...
	args string
}

func parseDockerfile(t *testing.T, file string) []instruction {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []instruction
	var cur strings.Builder
	start := 0
	for i, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue // a comment or blank line (directives like syntax= included)
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{line: start, cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)})
		cur.Reset()
	}
	if cur.Len() > 0 {
		t.Fatalf("%s: a continuation line at the end", file)
	}
	return out
}

// stage is one FROM and what follows it.
type stage struct {
	base, name string
	body       []instruction
}

func stagesOf(t *testing.T, ins []instruction) []stage {
	t.Helper()
	var st []stage
	for _, in := range ins {
		if in.cmd == "FROM" {
			f := strings.Fields(in.args)
			for len(f) > 0 && strings.HasPrefix(f[0], "--") { // --platform=...
				f = f[1:]
			}
			s := stage{base: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				s.name = f[2]
			}
			st = append(st, s)
			continue
		}
		if len(st) == 0 {
			if in.cmd != "ARG" {
				t.Fatalf("line %d: %s before FROM", in.line, in.cmd)
			}
			continue
		}
		st[len(st)-1].body = append(st[len(st)-1].body, in)
	}
	return st
}

// shellWords splits a command line as sh does for plain words, single and
// double quotes, expanding $VAR and ${VAR} from vars outside single quotes.
func shellWords(t *testing.T, s string, vars map[string]string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord := false
	expand := func(i int) int { // s[i] == '$'
		j := i + 1
		var name string
		if j < len(s) && s[j] == '{' {
			end := strings.IndexByte(s[j:], '}')
			if end < 0 {
				t.Fatalf("unclosed ${ in %q", s)
			}
			name, j = s[j+1:j+end], j+end+1
		} else {
			for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			name = s[i+1 : j]
		}
		v, ok := vars[name]
		if !ok {
			t.Fatalf("$%s in %q is not an ARG the test knows", name, s)
		}
		w.WriteString(v)
		return j
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
			i++
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				t.Fatalf("unclosed ' in %q", s)
			}
			w.WriteString(s[i+1 : i+1+end])
			i, inWord = i+end+2, true
		case c == '"':
			i, inWord = i+1, true
			for i < len(s) && s[i] != '"' {
				if s[i] == '$' {
					i = expand(i)
					continue
				}
				w.WriteByte(s[i])
				i++
			}
			if i == len(s) {
				t.Fatalf("unclosed \" in %q", s)
			}
			i++
		case c == '$':
			i, inWord = expand(i), true
		case strings.IndexByte(";&|<>`\\", c) >= 0:
			t.Fatalf("the build command %q uses shell syntax the test does not run (%q)", s, c)
		default:
			w.WriteByte(c)
			i, inWord = i+1, true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// ignoreRule is one .dockerignore pattern, matched as Docker does for the
// forms used here: path segments matched with path.Match, ** for any
// number of them; a pattern that matches a directory excludes its contents.
type ignoreRule []string

func readDockerignore(t *testing.T, file string) []ignoreRule {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rules []ignoreRule
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "!") {
			t.Fatalf(".dockerignore: exceptions (%s) are not read by this test; keep the file to plain patterns", line)
		}
		rules = append(rules, strings.Split(path.Clean(strings.TrimPrefix(line, "/")), "/"))
	}
	return rules
}

func (r ignoreRule) match(segs []string) bool {
	if len(r) == 0 {
		return len(segs) == 0
	}
	if r[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if r[1:].match(segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	ok, err := path.Match(r[0], segs[0])
	return err == nil && ok && r[1:].match(segs[1:])
}

func ignored(rules []ignoreRule, rel string) bool {
	segs := strings.Split(rel, "/")
	for _, r := range rules {
		if r.match(segs) {
			return true
		}
	}
	return false
}

// copyContext copies root into dst, leaving out what rules exclude, and
// returns the files copied (slash paths).
func copyContext(t *testing.T, root, dst string, rules []ignoreRule) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if ignored(rules, rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, filepath.FromSlash(rel))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		files = append(files, rel)
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, src); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestDockerfile(t *testing.T) {
	root := filepath.Join("..", "..")
	st := stagesOf(t, parseDockerfile(t, filepath.Join(root, "Dockerfile")))
	if len(st) < 2 {
		t.Fatalf("%d stage(s): want a build stage and a runtime stage", len(st))
	}
	build, final := st[0], st[len(st)-1]

	// The build stage's Go is the toolchain go.mod names.
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if goLine == nil || build.base != "golang:"+string(goLine[1]) || build.name == "" {
		t.Errorf("build stage FROM %s AS %q: want golang:%s, named", build.base, build.name, goLine[1])
	}

	// The runtime stage: distroless static or scratch, the binary alone, a
	// numeric non-root user that the manifests' runAsUser matches.
	if !strings.HasPrefix(final.base, "gcr.io/distroless/static") && final.base != "scratch" {
		t.Errorf("final stage FROM %s: want gcr.io/distroless/static... or scratch", final.base)
	}
	var user, entry, copied string
	for _, in := range final.body {
		switch in.cmd {
		case "USER":
			user = in.args
		case "ENTRYPOINT":
			entry = in.args
		case "COPY":
			f := strings.Fields(in.args)
			if len(f) != 3 || f[0] != "--from="+build.name || f[2] != "/stormcheck" {
				t.Errorf("line %d: COPY %s: want COPY --from=%s BINARY /stormcheck", in.line, in.args, build.name)
			} else {
				copied = f[1]
			}
		case "RUN":
			t.Errorf("line %d: RUN in the final stage (no shell there)", in.line)
		}
	}
	if want := fmt.Sprintf("%d:%d", kube.NonRootUID, kube.NonRootUID); user != want {
		t.Errorf("USER %q, want %q (the runAsUser of stormcheck kube's pods)", user, want)
	}
	if entry != `["/stormcheck"]` {
		t.Errorf("ENTRYPOINT %s, want [\"/stormcheck\"] (exec form: no shell in the image)", entry)
	}

	// The build command, with the ARGs BuildKit would give it.
	vars := map[string]string{"TARGETOS": runtime.GOOS, "TARGETARCH": runtime.GOARCH, "VERSION": "v0.0.0-dockerfile-test"}
	var words []string
	workdir := ""
	for _, in := range build.body {
		if in.cmd == "WORKDIR" {
			workdir = in.args
		}
		if in.cmd == "RUN" && strings.Contains(in.args, "go build") {
			words = shellWords(t, in.args, vars)
		}
	}
	if words == nil {
		t.Fatal("no RUN ... go build in the build stage")
	}
	for len(words) > 0 && strings.HasPrefix(words[0], "--mount=") {
		words = words[1:]
	}
	env := []string{"GOFLAGS=", "GOTOOLCHAIN=local"}
	for len(words) > 0 && strings.Contains(words[0], "=") {
		env = append(env, words[0])
		words = words[1:]
	}
	if !strings.Contains(strings.Join(env, " "), "CGO_ENABLED=0") {
		t.Errorf("the build sets %v: want CGO_ENABLED=0 (a static binary)", env)
	}
	if len(words) < 3 || words[0] != "go" || words[1] != "build" || words[len(words)-1] != "./cmd/stormcheck" {
		t.Fatalf("build command %q: want go build ... ./cmd/stormcheck", words)
	}
	out := -1
	for i, w := range words {
		if w == "-o" && i+1 < len(words) {
			out = i + 1
		}
	}
	if out < 0 {
		t.Fatalf("build command %q: no -o", words)
	}
	if o := words[out]; o != copied && path.Join(workdir, o) != copied {
		t.Fatalf("the build writes %s (in %s), the final stage copies %s", o, workdir, copied)
	}

	// The context .dockerignore leaves: what the build needs, no tests, no
	// history.
	ctx := t.TempDir()
	files := copyContext(t, root, ctx, readDockerignore(t, filepath.Join(root, ".dockerignore")))
	for _, f := range files {
		if strings.HasPrefix(f, ".git/") || strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "results/") || f == "Dockerfile" {
			t.Errorf("the build context holds %s", f)
		}
	}
	if testing.Short() {
		t.Skip("-short: not building the image's binary (a full CGO_ENABLED=0 -trimpath build, minutes on a cold cache)")
	}
	bin := filepath.Join(t.TempDir(), "stormcheck")
	words[out] = bin
	cmd := exec.Command(words[0], words[1:]...)
	cmd.Dir = ctx
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s (in the build context): %v\n%s", strings.Join(words, " "), err, b)
	}
	if runtime.GOOS != "linux" {
		t.Skipf("built for %s; the static-binary check reads ELF", runtime.GOOS)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary asks for a dynamic loader: not static")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary needs %v: not static", libs)
	}
	v, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(v), vars["VERSION"]) {
		t.Errorf("%s version: %v\n%s", bin, err, v)
	}
	t.Logf("built %s from %d context files (%s)", bin, len(files), strconv.Quote(strings.Join(words[:len(words)-1], " ")))
}
