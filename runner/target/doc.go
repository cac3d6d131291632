// Package target opens the storage endpoint a run talks to (a managed
// Azurite, a connection string, an account key or Entra ID) and holds its
// clients: the Azure SDK clients of each service, built from the endpoint
// and credential the connection string names, requests signed by
// stormcheck's own Shared Key signer, the loopback proxy chain of
// throttling emulation and faults, the wire accounting of each attempt
// (bytes sent and received, bodies captured) and the watch on whether the
// target still answers. Errors it returns never hold a secret (Redact).
//
// It may use checks, scenarios, runner/azurite, runner/connstr,
// runner/faults, runner/sharedkey and runner/throttle.
package target
