// Package smb2 is stormcheck's own SMB2/3 client: small, and complete for
// what the harness needs to race opens, locks and leases on a file server.
//
// It is shaped like golang.org/x/net/http2's Framer: each SMB2 message is a
// small type with its own marshal and unmarshal (negotiate.go, create.go,
// lock.go, ...), a Conn sends and receives them (message ids, credits,
// interim STATUS_PENDING answers, signing, encryption, unsolicited break
// notifications), and a Session and Tree sit above it. Files are opened
// with exactly the desired access, share access, disposition, create
// options and lease the caller asks for; nothing is retried or defaulted
// behind the caller's back, so a harness records what the server decided.
//
// Supported: dialects 2.1, 3.0, 3.0.2 and 3.1.1 (pre-auth integrity with
// SHA-512); NTLMv2 inside SPNEGO (with MIC, key exchange and mechListMIC);
// signing with HMAC-SHA256 (2.1) and AES-CMAC (3.x), keys from the
// SP800-108 KDF; SMB 3 encryption with AES-128-CCM and AES-128-GCM; tree
// connect; CREATE with lease contexts (v1 and v2); CLOSE, READ, WRITE,
// FLUSH, LOCK (fail-immediately and blocking), SET_INFO (disposition, end of
// file), QUERY_INFO (standard information), QUERY_DIRECTORY, ECHO, CANCEL,
// LOGOFF and TREE_DISCONNECT; oplock and lease break notifications and
// their acknowledgements. Not supported: Kerberos, compounding,
// multichannel, durable handles, DFS, compression, AES-256 and GMAC
// signing.
//
// Every call takes a context; a cancelled context abandons the wait (and,
// for a request the server has answered with STATUS_PENDING, sends CANCEL).
// A server status other than success comes back as an *Error carrying the
// Status, so callers test it with errors.Is(err, smb2.StatusSharingViolation)
// or IsStatus.
//
// The protocol is written from the specifications ([MS-SMB2], [MS-NLMP],
// [MS-SPNG], RFC 4178, [MS-FSA]) and tested against their published test
// vectors and against Samba.
package smb2
