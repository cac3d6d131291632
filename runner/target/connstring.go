package target

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/stormcheck/stormcheck/runner/connstr"
	"github.com/stormcheck/stormcheck/runner/sharedkey"
	"github.com/stormcheck/stormcheck/scenarios"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// ErrBadConnectionString is in the chain of an error about a connection
// string that cannot be used as given: it cannot be read, its AccountKey
// is not base64, it carries no credential, or it gives no endpoint to a
// service the caller uses. The user's input is at fault, not the harness
// (the command line exits 2). The error never holds the key or the SAS.
var ErrBadConnectionString = errors.New("bad connection string")

// connStringError is a bad connection string's error: its message is
// already redacted, and it matches ErrBadConnectionString.
type connStringError struct{ msg string }

func (e *connStringError) Error() string        { return e.msg }
func (e *connStringError) Is(target error) bool { return target == ErrBadConnectionString }

// CheckConnectionString checks, without sending anything, the connection
// string a target of kind connection-string would use (o.ConnectionString,
// else the environment variable the scenario names), as OpenTarget reads
// it (see readConnectionString). Other targets, and an empty variable
// (OpenTarget says so), pass. The error matches ErrBadConnectionString and
// never holds the key or the SAS.
func CheckConnectionString(st scenarios.Target, o Options) error {
	if o.ConnectionString == "" && st.Kind != scenarios.TargetConnectionString {
		return nil
	}
	cs, from, _ := connectionStringOf(st, o)
	if cs == "" {
		return nil
	}
	_, err := readConnectionString(cs, from, o.Uses)
	return err
}

// connectionStringOf is the connection string a target of kind
// connection-string uses: o.ConnectionString, else the environment
// variable env the scenario names (AZURE_STORAGE_CONNECTION_STRING by
// default); from names where it came from, for errors.
func connectionStringOf(st scenarios.Target, o Options) (cs, from, env string) {
	if o.ConnectionString != "" {
		return o.ConnectionString, "--connection-string", ""
	}
	env = st.ConnectionStringEnv
	if env == "" {
		env = "AZURE_STORAGE_CONNECTION_STRING"
	}
	return os.Getenv(env), "environment variable " + env, env
}

// readConnectionString reads cs, given by from (named in the error): it
// must parse (runner/connstr), an AccountKey must be base64, it must carry
// a credential, and it must give an endpoint to every service of uses
// (Blob when uses is empty).
func readConnectionString(cs, from string, uses connstr.Services) (*connstr.Parsed, error) {
	bad := func(format string, a ...any) error {
		return &connStringError{"target: the connection string in " + from + " " + fmt.Sprintf(format, a...)}
	}
	p, err := connstr.Parse(cs)
	if err != nil {
		return nil, bad("%s", err)
	}
	switch p.Auth {
	case connstr.SharedKey:
		// The signer's own check (it signs every Blob request).
		if _, err := sharedkey.New(p.AccountName, p.AccountKey); err != nil {
			return nil, bad("has an AccountKey that is not valid base64 (give the key as the portal or 'az storage account keys list' shows it)")
		}
	case connstr.Anonymous:
		return nil, bad("carries no credential: give AccountName and AccountKey, or SharedAccessSignature (stormcheck creates and deletes containers, tables and queues)")
	}
	if uses == 0 {
		uses = connstr.Of(connstr.Blob)
	}
	for _, s := range uses.List() {
		if _, _, err := p.Endpoint(s); err != nil {
			return nil, bad("%s, and the %s service is used", err, s)
		}
	}
	return p, nil
}

// ScenarioServices are the services a run of sc sends to: Blob (the run's
// marker container) and those of its workloads' kinds.
func ScenarioServices(sc *scenarios.Scenario) connstr.Services {
	uses := connstr.Of(connstr.Blob)
	for _, w := range sc.Workloads {
		uses |= kindServices(w.Kind)
	}
	return uses
}

// ruleServices are the services rule r uses: those of its steps' ops, and
// Blob (its container) when it has no table or queue step.
func RuleServices(r *conformance.Rule) connstr.Services {
	var uses connstr.Services
	for _, st := range r.Steps {
		if st.Op != "wait" {
			uses |= kindServices(st.Op)
		}
	}
	if uses == 0 {
		uses = connstr.Of(connstr.Blob)
	}
	return uses
}

// kindServices is the service an op or workload kind (blob.put,
// container.create, table.insert, queue.work ...) goes to.
func kindServices(kind string) connstr.Services {
	switch {
	case strings.HasPrefix(kind, "table."):
		return connstr.Of(connstr.Table)
	case strings.HasPrefix(kind, "queue."):
		return connstr.Of(connstr.Queue)
	case strings.HasPrefix(kind, "files.rest-"), kind == "files.interplay", strings.HasPrefix(kind, "file."):
		return connstr.Of(connstr.File)
	}
	return connstr.Of(connstr.Blob)
}
