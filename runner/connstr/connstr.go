// Package connstr reads an Azure Storage connection string into what a
// client needs for each service: the endpoint its calls go to and the
// credential they carry. It is the only reader of connection strings in
// stormcheck: every SDK client of a connection-string target is built from
// its result, never from the raw string, so that a service's calls (and
// the key or SAS they carry) go only to the endpoint the string names or
// derives.
//
// The forms are those of "Configure Azure Storage connection strings":
//
//   - account key: [DefaultEndpointsProtocol=http|https;]AccountName=A;AccountKey=K[;EndpointSuffix=S]:
//     each service's endpoint is PROTOCOL://A.SERVICE.S (https and
//     core.windows.net by default);
//   - explicit endpoints: BlobEndpoint=, QueueEndpoint=, TableEndpoint=,
//     FileEndpoint= name a service's endpoint, which wins over the derived
//     one; with AccountName and a credential the services not named are
//     derived as above, without AccountName they have none;
//   - shared access signature: SharedAccessSignature=SAS instead of
//     AccountKey, with or without AccountName (without it only the named
//     endpoints exist);
//   - development storage: UseDevelopmentStorage=true[;DevelopmentStorageProxyUri=URI]
//     is the emulator's well-known account devstoreaccount1 and its key at
//     http://127.0.0.1:10000/devstoreaccount1 (blob), :10001 (queue),
//     :10002 (table); a proxy URI replaces the scheme and host.
//
// Keys are case-insensitive, values are taken whole after the first '='
// (a SAS or a base64 key holds more), parts are separated by ';' with
// spaces around them and empty parts (a trailing ';') ignored. A key given
// twice, an unknown key, an empty value, a part without '=', an endpoint
// that is not an absolute http or https URL (or carries a query, user
// information or a fragment), and AccountKey together with
// SharedAccessSignature are refused. No error ever holds a value.
package connstr

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
)

// Service is one of the four Storage services.
type Service int

// The services, in the order Services lists them.
const (
	Blob Service = iota
	Queue
	Table
	File
	nServices
)

var serviceNames = [nServices]string{"blob", "queue", "table", "file"}

// String is the service's name in lower case ("table").
func (s Service) String() string { return serviceNames[s] }

// Key is the connection-string key naming the service's endpoint
// ("TableEndpoint").
func (s Service) Key() string {
	n := serviceNames[s]
	return strings.ToUpper(n[:1]) + n[1:] + "Endpoint"
}

// Services is a set of services.
type Services uint8

// Of is the set of the services given.
func Of(s ...Service) Services {
	var set Services
	for _, x := range s {
		set |= 1 << x
	}
	return set
}

// Has reports whether s holds x.
func (s Services) Has(x Service) bool { return s&(1<<x) != 0 }

// List is s's services in the order Blob, Queue, Table, File.
func (s Services) List() []Service {
	var out []Service
	for x := Blob; x < nServices; x++ {
		if s.Has(x) {
			out = append(out, x)
		}
	}
	return out
}

// Auth is how a connection string's calls are authorised.
type Auth int

const (
	// Anonymous: no credential (explicit endpoints only).
	Anonymous Auth = iota
	// SharedKey: every request is signed with the account's key.
	SharedKey
	// SAS: every request carries the shared access signature in its query.
	SAS
)

// The emulator's well-known account and key (public, documented; the
// same for every emulator).
const (
	DevAccount = "devstoreaccount1"
	DevKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// devPorts are the emulator's ports by service (no file service).
var devPorts = [nServices]string{"10000", "10001", "10002", ""}

// Parsed is what a connection string says. AccountKey and SAS are
// secrets: never print them.
type Parsed struct {
	Auth Auth
	// AccountName is the account's name ("" in a SAS or anonymous string
	// without one).
	AccountName string
	// AccountKey is the account's key (SharedKey only).
	AccountKey string
	// SAS is the shared access signature without a leading '?' (SAS only).
	SAS string
	// DevelopmentStorage is set for UseDevelopmentStorage=true.
	DevelopmentStorage bool
	endpoints          [nServices]string
	named              [nServices]bool
}

// Endpoint is the service's endpoint URL (without any SAS), and whether
// the string names it (false: derived). An error says which key is missing
// when the string gives the service no endpoint.
func (p *Parsed) Endpoint(s Service) (u string, named bool, err error) {
	if p.endpoints[s] == "" {
		if p.DevelopmentStorage {
			return "", false, fmt.Errorf("is UseDevelopmentStorage=true, which has no %s endpoint", s)
		}
		return "", false, fmt.Errorf("has no %s and no AccountName to derive it from", s.Key())
	}
	return p.endpoints[s], p.named[s], nil
}

// ClientURL is the URL a client of the service is built from: the
// endpoint, with the SAS as its query when the string authorises by SAS.
// It holds the SAS: never print it.
func (p *Parsed) ClientURL(s Service) (string, error) {
	u, _, err := p.Endpoint(s)
	if err != nil || p.Auth != SAS {
		return u, err
	}
	return u + "?" + p.SAS, nil
}

// Error is a connection string's parse error. Its message never holds a
// value of the string; it reads after "the connection string ...".
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

func errorf(format string, a ...any) error { return &Error{fmt.Sprintf(format, a...)} }

// keyList are the keys a connection string may hold; keys has them by
// lower-case name.
var (
	keyList = []string{"DefaultEndpointsProtocol", "AccountName", "AccountKey", "SharedAccessSignature",
		"EndpointSuffix", "BlobEndpoint", "QueueEndpoint", "TableEndpoint", "FileEndpoint",
		"UseDevelopmentStorage", "DevelopmentStorageProxyUri"}
	keys = map[string]string{}
)

func init() {
	for _, k := range keyList {
		keys[strings.ToLower(k)] = k
	}
}

var (
	keyName     = regexp.MustCompile(`^[A-Za-z]{1,40}$`)
	accountName = regexp.MustCompile(`^[A-Za-z0-9-]{1,63}$`)
	dnsName     = regexp.MustCompile(`^[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})*$`)
)

// Parse reads cs. Its errors are *Error.
func Parse(cs string) (*Parsed, error) {
	f, err := fields(cs)
	if err != nil {
		return nil, err
	}
	if v, ok := f["UseDevelopmentStorage"]; ok {
		return development(f, v)
	}
	if _, ok := f["DevelopmentStorageProxyUri"]; ok {
		return nil, errorf("cannot be parsed: DevelopmentStorageProxyUri goes only with UseDevelopmentStorage=true")
	}
	p := &Parsed{AccountName: f["AccountName"]}
	key, hasKey := f["AccountKey"]
	sas, hasSAS := f["SharedAccessSignature"]
	switch {
	case hasKey && hasSAS:
		return nil, errorf("cannot be parsed: it has both AccountKey and SharedAccessSignature (give one)")
	case hasKey && p.AccountName == "":
		return nil, errorf("cannot be parsed: it has an AccountKey but no AccountName")
	case hasKey:
		p.Auth, p.AccountKey = SharedKey, key
	case hasSAS:
		p.Auth, p.SAS = SAS, strings.TrimPrefix(sas, "?")
		if q, err := url.ParseQuery(p.SAS); err != nil || p.SAS == "" || len(q) == 0 {
			return nil, errorf("cannot be parsed: its SharedAccessSignature is not a URL query (sv=...&sig=...)")
		}
	case p.AccountName != "":
		return nil, errorf("cannot be parsed: it has an AccountName but neither AccountKey nor SharedAccessSignature")
	}
	if v, ok := f["DefaultEndpointsProtocol"]; ok && !strings.EqualFold(v, "http") && !strings.EqualFold(v, "https") {
		return nil, errorf("cannot be parsed: its DefaultEndpointsProtocol is neither http nor https")
	}
	for s := Blob; s < nServices; s++ {
		if v, ok := f[s.Key()]; ok {
			if err := checkEndpoint(s.Key(), v); err != nil {
				return nil, err
			}
			p.endpoints[s], p.named[s] = v, true
		}
	}
	if p.AccountName != "" {
		if err := p.derive(f); err != nil {
			return nil, err
		}
	}
	if p.endpoints == [nServices]string{} {
		return nil, errorf("cannot be parsed: it names no endpoint (give AccountName, from which they derive, or BlobEndpoint, QueueEndpoint, TableEndpoint, FileEndpoint)")
	}
	return p, nil
}

// derive fills the endpoints the string does not name from AccountName,
// DefaultEndpointsProtocol and EndpointSuffix.
func (p *Parsed) derive(f map[string]string) error {
	proto := "https"
	if v, ok := f["DefaultEndpointsProtocol"]; ok {
		proto = strings.ToLower(v)
	}
	suffix := "core.windows.net"
	if v, ok := f["EndpointSuffix"]; ok {
		if !dnsName.MatchString(v) {
			return errorf("cannot be parsed: its EndpointSuffix is not a DNS name (e.g. core.windows.net)")
		}
		suffix = v
	}
	for s := Blob; s < nServices; s++ {
		if p.named[s] {
			continue
		}
		if !accountName.MatchString(p.AccountName) {
			// It becomes part of a host name: letters, digits and '-' only.
			return errorf("cannot be parsed: its AccountName is not a storage account name (letters and digits), and %s is derived from it", s.Key())
		}
		p.endpoints[s] = proto + "://" + strings.ToLower(p.AccountName) + "." + s.String() + "." + suffix
	}
	return nil
}

// development is the UseDevelopmentStorage=true form.
func development(f map[string]string, v string) (*Parsed, error) {
	if !strings.EqualFold(v, "true") {
		return nil, errorf("cannot be parsed: UseDevelopmentStorage takes only the value true")
	}
	for k := range f {
		if k != "UseDevelopmentStorage" && k != "DevelopmentStorageProxyUri" {
			return nil, errorf("cannot be parsed: UseDevelopmentStorage=true takes no other key than DevelopmentStorageProxyUri (it has %s)", k)
		}
	}
	p := &Parsed{Auth: SharedKey, AccountName: DevAccount, AccountKey: DevKey, DevelopmentStorage: true}
	scheme, host := "http", "127.0.0.1"
	if proxy, ok := f["DevelopmentStorageProxyUri"]; ok {
		if err := checkEndpoint("DevelopmentStorageProxyUri", proxy); err != nil {
			return nil, err
		}
		u, _ := url.Parse(proxy)
		scheme, host = strings.ToLower(u.Scheme), u.Hostname()
	}
	for s := Blob; s < File; s++ {
		p.endpoints[s] = scheme + "://" + net.JoinHostPort(host, devPorts[s]) + "/" + DevAccount
	}
	return p, nil
}

// checkEndpoint checks that v, the value of key, is an absolute http or
// https URL with a host and nothing that would carry a secret or be lost.
func checkEndpoint(key, v string) error {
	u, err := url.Parse(v)
	switch {
	case err != nil || u.Host == "" || u.Hostname() == "":
		return errorf("cannot be parsed: its %s is not an absolute URL (http://host[:port][/path] or https://...)", key)
	case !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https"):
		return errorf("cannot be parsed: its %s is not an http or https URL", key)
	case u.User != nil:
		return errorf("cannot be parsed: its %s holds user information (user@host): give credentials as AccountKey or SharedAccessSignature", key)
	case u.RawQuery != "" || u.ForceQuery:
		return errorf("cannot be parsed: its %s has a query: give a SAS as SharedAccessSignature", key)
	case u.Fragment != "":
		return errorf("cannot be parsed: its %s has a fragment (#...)", key)
	}
	return nil
}

// fields are cs's Name=value pairs by canonical key name.
func fields(cs string) (map[string]string, error) {
	f := map[string]string{}
	n := 0
	for _, part := range strings.Split(cs, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		n++
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return nil, errorf("cannot be parsed: part %d is not Name=value", n)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		canon, known := keys[strings.ToLower(k)]
		switch {
		case !known && keyName.MatchString(k):
			return nil, errorf("cannot be parsed: unknown key %s (known: %s)", k, strings.Join(keyList, ", "))
		case !known:
			return nil, errorf("cannot be parsed: part %d is not Name=value with a known name (known: %s)", n, strings.Join(keyList, ", "))
		case v == "":
			return nil, errorf("cannot be parsed: %s is empty", canon)
		}
		if _, dup := f[canon]; dup {
			return nil, errorf("cannot be parsed: %s is given twice", canon)
		}
		f[canon] = v
	}
	if n == 0 {
		return nil, errorf("cannot be parsed: it is empty")
	}
	return f, nil
}
