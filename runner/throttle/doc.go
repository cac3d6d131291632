// Package throttle is a loopback HTTP reverse proxy that makes a target
// that never throttles (Azurite) throttle the way the scalability checklist
// says Azure Storage does: each unit (one blob, one table partition, one
// queue) and each account has a token bucket at its target rate, and a
// request over it is answered 503 ServerBusy, in the service's own error
// format, without being forwarded.
//
// Typical use:
//
//	p, err := throttle.Start(ctx, throttle.Options{
//		Blob: inst.BlobURL, Queue: inst.QueueURL, Table: inst.TableURL,
//		Limits: throttle.Limits{BlobRequests: 500, PartitionEntities: 2000, QueueMessages: 2000, AccountRequests: 20000},
//		Warmup: 10 * time.Second,
//	})
//	if err != nil { ... }
//	defer p.Close()
//	// point the SDK clients at p.BlobURL, p.QueueURL, p.TableURL
//
// # Forwarding
//
// Each service gets its own listener on 127.0.0.1 (a kernel-chosen port);
// the proxy's URL for it is the upstream's path on that host:port. Requests
// are forwarded unchanged: same method, path (byte for byte), query,
// headers, body and framing, so Shared Key and SAS signatures, which sign
// the path and not the host, stay valid. Only the destination changes (and
// the Host header, to the upstream's). Only plain-HTTP loopback upstreams
// are accepted (host 127.0.0.1, ::1 or localhost; every connection's peer
// is checked to be a loopback address), and the environment's HTTP proxy
// is never used. Responses stream through; nothing is buffered except the
// bodies needed to find a unit (table entity inserts and $batch), which
// are bounded by MaxBatchBody (4 MiB, the service's own batch limit;
// larger ones get 413 RequestBodyTooLarge).
//
// # Units and amounts
//
// Units are identified from path-style URLs (/account/...) and counted the
// way reports/units.go accounts operations:
//
//   - Blob: /account/container/blob... is the blob "account/container/blob";
//     every request to it is 1 request. Container and service requests
//     (/account/container, /account?comp=list) count to the account only.
//   - Table partition "account/table/PartitionKey" (the table name
//     lower-cased, as the service compares it): 1 entity for a request
//     on one entity (/account/table(PartitionKey='pk',RowKey='rk'), any
//     verb; a doubled quote in a key is one quote) and for an insert (POST /account/table,
//     the PartitionKey read from the JSON body); for a $batch, the number
//     of operations in it, the partition taken from the first operation's
//     JSON body or else its URL; for a query (GET /account/table() or
//     /account/table), the entities returned, counted after the response
//     from the JSON "value" array, at least 1. A query's partition is the
//     PartitionKey its $filter pins (PartitionKey eq 'pk' as a conjunct of
//     the whole filter, or the same key in every branch of an "or"); a
//     query that pins none is a table scan and counts to the account only.
//     Table-level requests (/account/Tables..., ACLs) count 1 to the
//     account only.
//   - Queue "account/queue": on /account/queue/messages..., a put, an
//     update, a delete (and a clear) is 1 message; a get or a peek is the
//     messages returned, counted after the response (the <QueueMessage>
//     elements), at least 1. Queue-level requests count to the account
//     only.
//   - Account "account": every request is 1 from the account's bucket,
//     except table requests, which take their entities (the same amount as
//     their partition, or a scan's entities returned).
//
// An amount known only after the response is reserved first (1 entity for
// a query; numofmessages, default 1, for a queue get or peek), the request
// is admitted or refused on the reservation, and the bucket is corrected
// when the response has streamed through: a query that returned 500
// entities leaves its partition 499 in debt, which throttles the next
// requests until the debt is paid back at the partition's rate.
//
// # Token buckets
//
// A bucket holds at most Burst seconds of its current rate (default 1 s)
// and starts full. Each second it gains its rate in tokens (the exact
// integral of the rate when warm-up makes the rate vary). A request is
// admitted when its unit's bucket and its account's bucket each hold at
// least min(amount, depth) tokens; the amounts are then debited, which may
// leave a bucket negative (an amount larger than the whole bucket, such
// as a batch of 100 against a 50-deep bucket, passes from a full bucket and
// leaves it in debt, rather than never passing). Otherwise nothing is
// debited and the request is answered 503 ServerBusy. A limit of 0 means no
// bucket for that kind.
//
// # Warm-up model
//
// The checklist says partitions absorb slow ramps better than bursts ("if
// your traffic has sudden bursts, you may not be able to get this volume of
// throughput immediately ... ramping up slowly generally has better
// results"). With Warmup = W > 0, each unit (not the account, whose limits
// are provisioned) has a warmth w in [0, W] seconds, starting at 0:
//
//   - A unit is under load from each request it receives (admitted or
//     refused: demand is what makes the service rebalance) until
//     LoadWindow (1 s) later. While under load, w grows by one second per
//     second up to W; while not, it shrinks by one second per second down
//     to 0 (a unit left idle for as long as it was loaded is cold again).
//   - Its sustainable rate is r(w) = target × (ColdFraction + (1 −
//     ColdFraction) × w / W), with ColdFraction = 0.2: a cold unit
//     sustains 20 % of its target and reaches all of it after W of
//     sustained load. The bucket's refill is the integral of r over time
//     and its depth is Burst × r(w).
//
// So a burst straight to the target rate against a cold unit empties its
// bucket (ColdFraction × target × Burst tokens, refilled at about
// ColdFraction × target) in about Burst × ColdFraction / (1 −
// ColdFraction), 0.25 s with the defaults, and is throttled from then on,
// while a linear ramp from 0 to
// the target over W or longer never asks for more than r(w) and is not
// throttled. The model counts time under load, not the amount of it: any
// steady trickle (one request a second) keeps a unit warming.
//
// # Answers
//
// A refused request gets 503 with x-ms-error-code: ServerBusy, a fresh
// x-ms-request-id, x-ms-version and x-ms-client-request-id copied from the
// request, and the service's error body: for blob and queue
//
//	<?xml version="1.0" encoding="utf-8"?><Error><Code>ServerBusy</Code><Message>MSG
//	RequestId:...
//	Time:...</Message></Error>
//
// and for table
//
//	{"odata.error":{"code":"ServerBusy","message":{"lang":"en-US","value":"MSG\nRequestId:...\nTime:..."}}}
//
// MSG is MsgAccountOps ("Operations per second is over the account
// limit.") when the account's bucket refused, else MsgServerBusy ("The
// server is currently unable to receive requests. Please retry your
// request."), both documented for ServerBusy (503) in "Common REST API
// error codes". The Azure SDK for Go reports them as *azcore.ResponseError
// with StatusCode 503 and ErrorCode "ServerBusy", which stormcheck files as
// throttled.
//
// Options.Delay adds a fixed latency to every request, before it is looked
// at (so throttled answers are delayed too). Stats reports per unit the
// amount admitted, the requests its bucket refused and when it first did;
// MaxUnits bounds the units tracked.
package throttle
