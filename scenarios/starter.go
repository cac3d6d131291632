package scenarios

import (
	"fmt"
	"strings"

	"github.com/stormcheck/stormcheck/scenarios/examples"
)

// SchemaURL is the $id of the JSON Schema of scenario files: a name for
// it, not where editors find it (see SchemaRef).
const SchemaURL = "https://raw.githubusercontent.com/stormcheck/stormcheck/main/scenarios/examples/scenario.schema.json"

// SchemaRef is the yaml-language-server schema reference on the first line
// of every example and starter: the schema file beside the scenario, which
// 'stormcheck init' writes there (and 'stormcheck schema' prints).
const SchemaRef = "./" + examples.SchemaFile

// Starter returns a commented starter scenario for a workload of kind: one
// workload with every param the kind takes at its default, each explained
// with its allowed values, ready to validate and run. schema is the
// yaml-language-server schema reference for its first line ("" for
// SchemaRef).
func Starter(kind, schema string) ([]byte, error) {
	spec, ok := Kinds[kind]
	if !ok {
		return nil, fmt.Errorf("%s", UnknownKind(kind))
	}
	if schema == "" {
		schema = SchemaRef
	}
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	name := strings.ReplaceAll(kind, ".", "-")
	wname := kind[strings.LastIndexByte(kind, '.')+1:]
	line("# yaml-language-server: $schema=%s", schema)
	line("#")
	line("# A starter scenario for %s:", kind)
	for _, l := range wrap(spec.Summary, 74) {
		line("#   %s", l)
	}
	line("#")
	line("# Check it:  stormcheck validate FILE")
	switch {
	case AccountOnly(kind):
		line("# Run it:    AZURE_STORAGE_CONNECTION_STRING='AccountName=...;AccountKey=...' stormcheck run FILE")
		line("#            (an account's file endpoint: Azurite has no File service, Samba no REST)")
	case strings.HasPrefix(kind, "files."):
		line("# Run it:    stormcheck run FILE   (a managed Samba: root on Linux; samba is installed if missing)")
	default:
		line("# Run it:    stormcheck run FILE   (a managed Azurite, nothing else needed)")
	}
	line("# Every field with its meaning: stormcheck init --example quickstart; every kind: stormcheck kinds")
	line("")
	line("# name: names the results folder and the reports; lowercase letters, digits and -.")
	line("name: %s", name)
	switch {
	case AccountOnly(kind):
		line("# target: an account's file endpoint, from the connection string in the variable")
		line("# connection_string_env names (AccountName and AccountKey, or FileEndpoint and a SAS).")
		line("target:")
		line("  kind: %s", TargetConnectionString)
	case strings.HasPrefix(kind, "files."):
		line("# target: a private Samba the run starts on loopback and stops.")
		line("target:")
		line("  kind: %s", TargetSamba)
	}
	line("# duration: each workload's load phase (a Go duration: 30s, 2m, 1h).")
	line("duration: 30s")
	line("workloads:")
	line("  - name: %s", wname)
	line("    kind: %s", kind)
	line("    # executor: closed (default: each actor waits for its answer) or open (arrivals at")
	line("    # a fixed rate, set rate: N per second; see stormcheck init --example open-loop).")
	line("    # actors: concurrent actors, 1 to %d. Default 1 (closed), %d (open).", maxActors, defaultOpenActors)
	line("    actors: 8")
	line("    # keys: how many distinct blobs, entities, partitions or queues the actors share.")
	line("    keys: 1")
	if len(spec.Params) == 0 {
		line("    # %s takes no params.", kind)
	} else {
		line("    params:")
		for _, n := range spec.Params {
			p := ParamSpecOf(n)
			for _, l := range wrap(p.Doc+"; "+p.RangeText(kind)+".", 70) {
				line("      # %s", l)
			}
			if d := p.DefaultFor(kind); d != "" {
				line("      %s: %s", n, d)
				continue
			}
			line("      # %s: default %s", n, p.DefaultTextFor(kind))
		}
	}
	checks := spec.Checks
	line("")
	if len(checks) == 0 {
		line("# %s has no check: its report tables are the result.", kind)
	} else {
		line("# checks (optional): default every check that applies: %s.", strings.Join(checks, ", "))
		if len(spec.OptionalChecks) > 0 {
			line("# Optional, listed here to run them too: %s.", strings.Join(spec.OptionalChecks, ", "))
			line("# checks: [%s]", strings.Join(append(append([]string(nil), checks...), spec.OptionalChecks...), ", "))
		}
	}
	return []byte(b.String()), nil
}

// wrap breaks text into lines of at most width characters, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(text) {
		if cur != "" && len(cur)+1+len(w) > width {
			lines = append(lines, cur)
			cur = w
			continue
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// AccountOnly reports whether a workload kind runs only against an
// account's file endpoint: the Azure Files REST kinds (no local server
// answers the File REST API).
func AccountOnly(kind string) bool {
	return strings.HasPrefix(kind, "files.rest-") || kind == "files.interplay"
}
