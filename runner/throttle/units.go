package throttle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
)

// UnitKind names a kind of unit, as reports.UnitKind does, plus the account.
type UnitKind string

// Unit kinds.
const (
	KindBlob      UnitKind = "blob"
	KindPartition UnitKind = "partition"
	KindQueue     UnitKind = "queue"
	KindAccount   UnitKind = "account"
)

// service is which of the three endpoints a request came in on.
type service int

const (
	svcBlob service = iota
	svcQueue
	svcTable
)

func (s service) String() string {
	return [...]string{"blob", "queue", "table"}[s]
}

// post says what to count in a response to learn the real amount.
type post int

const (
	postNone     post = iota
	postEntities      // the JSON "value" array of a table query
	postMessages      // the <QueueMessage> elements of a queue get or peek
)

// unitKey identifies a unit. Names are path-style: blob
// "account/container/blob", partition "account/table/PartitionKey", queue
// "account/queue", account "account".
type unitKey struct {
	kind UnitKind
	name string
}

// demand is what one request asks of its unit and of its account.
type demand struct {
	account string
	unit    unitKey // kind "": the request touches the account only
	// amount is reserved against the unit, accountAmount against the
	// account, before forwarding.
	amount, accountAmount float64
	// post, when set, replaces the reserved amount by the counted one
	// (at least 1) once the response is through; accountFollows says the
	// account's amount is replaced too (tables count entities there).
	post           post
	accountFollows bool
}

// MaxBatchBody bounds the request bodies the proxy reads to identify a
// unit (table $batch and entity inserts): the service's own limit for a
// batch payload is 4 MiB. Larger ones are refused with 413
// RequestBodyTooLarge; no other body is read.
const MaxBatchBody = 4 << 20

// maxQueueGet is the service's cap on numofmessages.
const maxQueueGet = 32

// splitAccount splits a decoded path-style path into the account and the
// rest (no leading slash).
func splitAccount(p string) (account, rest string) {
	p = strings.TrimPrefix(p, "/")
	account, rest, _ = strings.Cut(p, "/")
	return account, rest
}

// needsBody reports whether identifying r needs its body: table entity
// inserts (the PartitionKey is only in the JSON body) and $batch.
func needsBody(svc service, r *http.Request) bool {
	if svc != svcTable || r.Method != http.MethodPost {
		return false
	}
	_, rest := splitAccount(r.URL.Path)
	if rest == "$batch" {
		return true
	}
	name, _, paren := strings.Cut(rest, "(")
	return !paren && name != "" && !strings.Contains(name, "/") && !strings.EqualFold(name, "Tables") && queryGet(r.URL.Query(), "comp") == ""
}

// identify says which unit r counts against and how much (see the package
// documentation for the rules). body is r's body when needsBody, else nil.
func identify(svc service, r *http.Request, body []byte) demand {
	account, rest := splitAccount(r.URL.Path)
	d := demand{account: account, amount: 1, accountAmount: 1}
	switch svc {
	case svcBlob:
		container, blob, _ := strings.Cut(rest, "/")
		if container != "" && blob != "" {
			d.unit = unitKey{KindBlob, account + "/" + container + "/" + blob}
		}
	case svcQueue:
		queue, sub, _ := strings.Cut(rest, "/")
		if sub != "messages" && !strings.HasPrefix(sub, "messages/") || queue == "" {
			break
		}
		d.unit = unitKey{KindQueue, account + "/" + queue}
		if r.Method == http.MethodGet && sub == "messages" {
			n := 1
			if s := queryGet(r.URL.Query(), "numofmessages"); s != "" {
				if v, err := strconv.Atoi(s); err == nil {
					n = min(max(v, 1), maxQueueGet)
				}
			}
			d.amount = float64(n)
			d.post = postMessages
		}
	case svcTable:
		identifyTable(&d, r, rest, body)
	}
	return d
}

// identifyTable fills d for a request to the table service.
func identifyTable(d *demand, r *http.Request, rest string, body []byte) {
	if rest == "$batch" {
		n, table, pk, err := parseBatch(r.Header.Get("Content-Type"), body)
		if err != nil || n == 0 {
			return
		}
		d.amount, d.accountAmount = float64(n), float64(n)
		if table != "" && pk != "" {
			d.unit = unitKey{KindPartition, partitionName(d.account, table, pk)}
		}
		return
	}
	table, args, hasArgs := parseTableResource(rest)
	if table == "" || strings.EqualFold(table, "Tables") || strings.Contains(table, "/") {
		return // service, table-level or malformed: the account only
	}
	q := r.URL.Query()
	if queryGet(q, "comp") != "" {
		return // table ACL
	}
	if pk, ok := keyArg(args, "PartitionKey"); ok {
		d.unit = unitKey{KindPartition, partitionName(d.account, table, pk)}
		return // one entity: 1
	}
	switch {
	case r.Method == http.MethodGet && (!hasArgs || strings.TrimSpace(args) == ""):
		// A query: the entities returned are counted after the response.
		d.post, d.accountFollows = postEntities, true
		if pk, ok := partitionFromFilter(queryGet(q, "$filter")); ok {
			d.unit = unitKey{KindPartition, partitionName(d.account, table, pk)}
		}
	case r.Method == http.MethodPost && !hasArgs:
		if pk, ok := jsonPartitionKey(body); ok {
			d.unit = unitKey{KindPartition, partitionName(d.account, table, pk)}
		}
	}
}

// partitionName names a partition unit. Table names are case-insensitive
// (case-preserving) in the service, so the name holds them lower-cased;
// PartitionKeys are case-sensitive and kept as they are.
func partitionName(account, table, pk string) string {
	return account + "/" + strings.ToLower(table) + "/" + pk
}

// queryGet returns a query parameter by case-insensitive name.
func queryGet(q url.Values, name string) string {
	if v, ok := q[name]; ok && len(v) > 0 {
		return v[0]
	}
	for k, v := range q {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// parseTableResource splits "table(args)" into table and args; hasArgs is
// false without parentheses.
func parseTableResource(rest string) (table, args string, hasArgs bool) {
	i := strings.IndexByte(rest, '(')
	if i < 0 {
		return rest, "", false
	}
	j := strings.LastIndexByte(rest, ')')
	if j < i {
		return rest[:i], rest[i+1:], true
	}
	return rest[:i], rest[i+1 : j], true
}

// keyArg finds name='value' in a key predicate such as
// PartitionKey='pk',RowKey='rk' and returns the unescaped value (a doubled
// quote is one quote). A lone quote not followed (after spaces) by ',' or ')' or the end
// is taken as a literal quote: the aztables SDK writes batch operation URLs
// without doubling quotes.
func keyArg(args, name string) (string, bool) {
	i := 0
	for {
		k := strings.Index(args[i:], name)
		if k < 0 {
			return "", false
		}
		k += i
		if k > 0 && args[k-1] != ',' && args[k-1] != ' ' && args[k-1] != '(' {
			i = k + len(name)
			continue
		}
		j := k + len(name)
		for j < len(args) && args[j] == ' ' {
			j++
		}
		if j >= len(args) || args[j] != '=' {
			i = k + len(name)
			continue
		}
		j++
		for j < len(args) && args[j] == ' ' {
			j++
		}
		if j >= len(args) || args[j] != '\'' {
			return "", false
		}
		return quoted(args, j)
	}
}

// quoted reads the OData string literal starting with the quote at s[i].
func quoted(s string, i int) (string, bool) {
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		if c != '\'' {
			b.WriteByte(c)
			continue
		}
		k := j + 1
		for k < len(s) && s[k] == ' ' {
			k++
		}
		switch {
		case j+1 < len(s) && s[j+1] == '\'':
			b.WriteByte('\'')
			j++
		case k == len(s) || s[k] == ',' || s[k] == ')':
			return b.String(), true
		default:
			b.WriteByte('\'') // an undoubled quote inside the key
		}
	}
	return "", false
}

// jsonPartitionKey returns the PartitionKey property of a JSON entity.
func jsonPartitionKey(body []byte) (string, bool) {
	var e struct {
		PartitionKey *string `json:"PartitionKey"`
	}
	if len(bytes.TrimSpace(body)) == 0 || json.Unmarshal(body, &e) != nil || e.PartitionKey == nil {
		return "", false
	}
	return *e.PartitionKey, true
}

// parseBatch reads a table $batch body (multipart/mixed, a changeset of
// operations inside, or a lone query operation) and returns how many
// operations it holds and the table and PartitionKey of the first one,
// taken from its JSON body, or else from its URL.
func parseBatch(contentType string, body []byte) (n int, table, pk string, err error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || !strings.HasPrefix(mt, "multipart/") || params["boundary"] == "" {
		return 0, "", "", errors.New("throttle: $batch body is not multipart")
	}
	var walk func(r io.Reader, boundary string, depth int) error
	walk = func(r io.Reader, boundary string, depth int) error {
		mr := multipart.NewReader(r, boundary)
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if mt, params, err := mime.ParseMediaType(part.Header.Get("Content-Type")); err == nil && strings.HasPrefix(mt, "multipart/") {
				if depth > 0 || params["boundary"] == "" {
					return errors.New("throttle: $batch nests too deep")
				}
				if err := walk(part, params["boundary"], depth+1); err != nil {
					return err
				}
				continue
			}
			n++
			if n == 1 {
				table, pk = batchOperation(part)
			}
		}
	}
	if err := walk(bytes.NewReader(body), params["boundary"], 0); err != nil {
		return 0, "", "", err
	}
	return n, table, pk, nil
}

// batchOperation reads one application/http part ("VERB URL HTTP/1.1",
// headers, blank line, body) and returns its table and PartitionKey.
func batchOperation(part io.Reader) (table, pk string) {
	br := bufio.NewReader(part)
	tp := textproto.NewReader(br)
	line, err := tp.ReadLine()
	if err != nil {
		return "", ""
	}
	if _, err := tp.ReadMIMEHeader(); err != nil && err != io.EOF {
		return "", ""
	}
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return "", ""
	}
	u, err := url.Parse(fields[1])
	if err != nil {
		return "", ""
	}
	_, rest := splitAccount(u.Path)
	table, args, _ := parseTableResource(rest)
	body, _ := io.ReadAll(br) // bounded: the whole batch is
	if k, ok := jsonPartitionKey(body); ok {
		return table, k
	}
	if k, ok := keyArg(args, "PartitionKey"); ok {
		return table, k
	}
	return table, ""
}

// A filter token: a string literal (unescaped), a parenthesis or a word.
type token struct {
	text string
	lit  bool
}

// tokenize splits an OData $filter into tokens.
func tokenize(f string) []token {
	var out []token
	for i := 0; i < len(f); {
		c := f[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '(' || c == ')':
			out = append(out, token{text: string(c)})
			i++
		case c == '\'':
			var b strings.Builder
			j := i + 1
			for ; j < len(f); j++ {
				if f[j] == '\'' {
					if j+1 < len(f) && f[j+1] == '\'' {
						b.WriteByte('\'')
						j++
						continue
					}
					break
				}
				b.WriteByte(f[j])
			}
			out = append(out, token{text: b.String(), lit: true})
			i = j + 1
		default:
			j := i
			for j < len(f) && !strings.ContainsRune(" \t\r\n()'", rune(f[j])) {
				j++
			}
			out = append(out, token{text: f[i:j]})
			i = j
		}
	}
	return out
}

// partitionFromFilter returns the PartitionKey every entity matching the
// filter must have, if the filter pins one: an equality PartitionKey eq
// 'pk' that is a conjunct of the whole filter (at any depth of "and" and
// parentheses), or the same key pinned in every branch of an "or".
// Anything else (no such equality, different keys in different branches,
// a negation) is a scan.
func partitionFromFilter(f string) (string, bool) {
	if strings.TrimSpace(f) == "" {
		return "", false
	}
	return pinned(tokenize(f))
}

func pinned(toks []token) (string, bool) {
	toks = stripParens(toks)
	if parts := splitTop(toks, "or"); len(parts) > 1 {
		var pk string
		for i, p := range parts {
			k, ok := pinned(p)
			if !ok || (i > 0 && k != pk) {
				return "", false
			}
			pk = k
		}
		return pk, true
	}
	if parts := splitTop(toks, "and"); len(parts) > 1 {
		for _, p := range parts {
			if k, ok := pinned(p); ok {
				return k, true
			}
		}
		return "", false
	}
	if len(toks) == 3 && isWord(toks[1], "eq") {
		switch {
		case isWord(toks[0], "PartitionKey") && toks[2].lit:
			return toks[2].text, true
		case toks[0].lit && isWord(toks[2], "PartitionKey"):
			return toks[0].text, true
		}
	}
	return "", false
}

func isWord(t token, w string) bool {
	if t.lit {
		return false
	}
	if w == "PartitionKey" {
		return t.text == w // property names are case-sensitive
	}
	return strings.EqualFold(t.text, w)
}

// stripParens removes parentheses enclosing the whole token list.
func stripParens(toks []token) []token {
	for len(toks) >= 2 && !toks[0].lit && toks[0].text == "(" && !toks[len(toks)-1].lit && toks[len(toks)-1].text == ")" {
		depth := 0
		encloses := true
		for i, t := range toks {
			if t.lit {
				continue
			}
			switch t.text {
			case "(":
				depth++
			case ")":
				depth--
				if depth == 0 && i != len(toks)-1 {
					encloses = false
				}
			}
			if !encloses {
				break
			}
		}
		if !encloses {
			break
		}
		toks = toks[1 : len(toks)-1]
	}
	return toks
}

// splitTop splits toks at the keyword op outside parentheses.
func splitTop(toks []token, op string) [][]token {
	var parts [][]token
	depth, start := 0, 0
	for i, t := range toks {
		if t.lit {
			continue
		}
		switch {
		case t.text == "(":
			depth++
		case t.text == ")":
			depth--
		case depth == 0 && isWord(t, op):
			parts = append(parts, toks[start:i])
			start = i + 1
		}
	}
	return append(parts, toks[start:])
}
