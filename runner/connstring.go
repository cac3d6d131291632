package runner

import (
	"errors"
	"fmt"
	"os"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/stormcheck/stormcheck/runner/sharedkey"
	"github.com/stormcheck/stormcheck/scenarios"
)

// ErrBadConnectionString is in the chain of an error about a connection
// string that cannot be used as given: the SDK cannot parse it, or its
// AccountKey is not base64. The user's input is at fault, not the harness
// (the command line exits 2). The error never holds the key.
var ErrBadConnectionString = errors.New("bad connection string")

// connStringError is a bad connection string's error: its message is
// already redacted, and it matches ErrBadConnectionString.
type connStringError struct{ msg string }

func (e *connStringError) Error() string        { return e.msg }
func (e *connStringError) Is(target error) bool { return target == ErrBadConnectionString }

// CheckConnectionString checks, without sending anything, the connection
// string a target of kind connection-string would use (o.ConnectionString,
// else the environment variable the scenario names): the SDK must parse
// it, and its AccountKey must be base64. Other targets, and an empty
// variable (OpenTarget says so), pass. The error matches
// ErrBadConnectionString and never holds the key.
func CheckConnectionString(st scenarios.Target, o TargetOptions) error {
	if o.ConnectionString == "" && st.Kind != scenarios.TargetConnectionString {
		return nil
	}
	cs, from, _ := connectionStringOf(st, o)
	if cs == "" {
		return nil
	}
	return checkConnectionString(cs, from)
}

// connectionStringOf is the connection string a target of kind
// connection-string uses: o.ConnectionString, else the environment
// variable env the scenario names (AZURE_STORAGE_CONNECTION_STRING by
// default); from names where it came from, for errors.
func connectionStringOf(st scenarios.Target, o TargetOptions) (cs, from, env string) {
	if o.ConnectionString != "" {
		return o.ConnectionString, "--connection-string", ""
	}
	env = st.ConnectionStringEnv
	if env == "" {
		env = "AZURE_STORAGE_CONNECTION_STRING"
	}
	return os.Getenv(env), "environment variable " + env, env
}

// checkConnectionString checks cs, given by from (named in the error).
func checkConnectionString(cs, from string) error {
	f := connectionStringFields(cs)
	if f["accountkey"] != "" {
		// The signer's own check (it signs every Blob request), named
		// plainly: the SDK says "decode account key: illegal base64 data".
		if _, err := sharedkey.New("account", f["accountkey"]); err != nil {
			return &connStringError{fmt.Sprintf("target: the connection string in %s has an AccountKey that is not valid base64 (give the key as the portal or 'az storage account keys list' shows it)", from)}
		}
	}
	if _, err := service.NewClientFromConnectionString(cs, nil); err != nil {
		return &connStringError{fmt.Sprintf("target: the connection string in %s cannot be parsed: %s", from, Redact(err.Error()))}
	}
	return nil
}
