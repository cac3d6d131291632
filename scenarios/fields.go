package scenarios

import (
	"strings"
)

// The fields each mapping of a scenario file accepts, in the order the
// documentation presents them.
var (
	topFields      = []string{"name", "description", "seed", "target", "duration", "timeout", "retry", "workloads", "checks", "capacity", "emulation", "thresholds", "compare", "unreachable_after", "faults", "clock_offset_bound"}
	targetFields   = []string{"kind", "connection_string_env", "account", "key_env", "blob_url", "queue_url", "table_url", "azurite_version", "signing", "encryption"}
	retryFields    = []string{"max_attempts", "base", "max", "on"}
	workloadFields = []string{"name", "kind", "executor", "actors", "rate", "keys", "duration", "iterations", "stages", "params", "shard_keys"}
	stageFields    = []string{"duration", "target"}
)

// shardKeyModes are the values of a workload's shard_keys.
var shardKeyModes = []string{ShardKeysDivided, ShardKeysShared}

// targetKinds are the target kinds, in the order messages list them.
var targetKinds = []string{TargetAzurite, TargetConnectionString, TargetAccountKey, TargetEntraID, TargetSamba}

// targetFieldKinds says which target kinds each kind-specific target field
// belongs to.
var targetFieldKinds = map[string][]string{
	"connection_string_env": {TargetConnectionString},
	"account":               {TargetAccountKey, TargetEntraID},
	"key_env":               {TargetAccountKey},
	"blob_url":              {TargetAccountKey, TargetEntraID},
	"queue_url":             {TargetAccountKey, TargetEntraID},
	"table_url":             {TargetAccountKey, TargetEntraID},
	"azurite_version":       {TargetAzurite},
	"signing":               {TargetSamba},
	"encryption":            {TargetSamba},
}

// smbSecurity are the values of a samba target's signing and encryption.
var smbSecurity = []string{SMBDefault, SMBRequired}

// retryOutcomes are the outcomes retry.on may name.
var retryOutcomes = []string{"throttled", "unknown", "error"}

// executors are the executor kinds.
var executors = []string{ExecutorClosed, ExecutorOpen}

// keyLike are spellings of an account key without an underscore.
var keyLike = []string{"accountkey", "storagekey", "accesskey", "sharedkey", "primarykey", "secondarykey"}

// secretHint returns the message for a field that looks like it holds a
// secret (connection_string, key, account_key, sas, ...), or "". Secrets
// never go in scenario files, which get committed and shared; the message
// never repeats the value.
func secretHint(name string) string {
	n := strings.ToLower(strings.ReplaceAll(name, "-", "_"))
	if strings.HasSuffix(n, "_env") {
		return ""
	}
	const never = "secrets never go in scenario files: "
	switch {
	case strings.Contains(n, "connection") || n == "conn_str" || n == "conn_string":
		return never + "put the connection string in an environment variable and name the variable with target.connection_string_env (target kind connection-string)"
	case n == "key" || strings.HasSuffix(n, "_key") || contains(keyLike, n):
		return never + "put the account key in an environment variable and name the variable with target.key_env (target kind account-key)"
	case strings.Contains(n, "sas") || strings.Contains(n, "token") || strings.Contains(n, "secret") ||
		strings.Contains(n, "password") || strings.Contains(n, "credential"):
		return never + "name an environment variable instead: target.connection_string_env (kind connection-string; the connection string may carry a SAS) or target.key_env (kind account-key), or use kind entra-id"
	}
	return ""
}
