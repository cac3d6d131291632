package throttle

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	blobservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// recorder is an SDK transport that keeps the last request the way a
// server receives it (serialised, then parsed back with http.ReadRequest)
// and answers 418, so the SDK builds real requests without a service.
type recorder struct {
	req  *http.Request
	body []byte
}

func (c *recorder) Do(req *http.Request) (*http.Response, error) {
	var buf bytes.Buffer
	if err := req.Write(&buf); err != nil {
		return nil, err
	}
	sr, err := http.ReadRequest(bufio.NewReader(&buf))
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(sr.Body)
	if err != nil {
		return nil, err
	}
	sr.Body = io.NopCloser(bytes.NewReader(body))
	c.req, c.body = sr, body
	return &http.Response{StatusCode: http.StatusTeapot, Status: "418 teapot", Header: http.Header{},
		Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
}

// demandOf runs call against an SDK client using rec, then identifies the
// recorded request as the proxy would.
func demandOf(t *testing.T, svc service, rec *recorder, call func(ctx context.Context)) demand {
	t.Helper()
	rec.req, rec.body = nil, nil
	call(context.Background())
	if rec.req == nil {
		t.Fatal("the SDK sent no request")
	}
	var body []byte
	if needsBody(svc, rec.req) {
		body = rec.body
	}
	return identify(svc, rec.req, body)
}

const (
	testAccount = "devstoreaccount1"
	testBase    = "http://127.0.0.1:10000/" + testAccount
)

func clientOpts(rec *recorder) azcore.ClientOptions {
	return azcore.ClientOptions{Transport: rec, Retry: policy.RetryOptions{MaxRetries: -1}}
}

func acctOnly(amount float64) demand {
	return demand{account: testAccount, amount: 1, accountAmount: amount}
}

func on(kind UnitKind, name string, amount float64) demand {
	return demand{account: testAccount, unit: unitKey{kind, testAccount + "/" + name}, amount: amount, accountAmount: amount}
}

func TestIdentifyBlob(t *testing.T) {
	rec := &recorder{}
	svc, err := blobservice.NewClientWithNoCredential(testBase, &blobservice.ClientOptions{ClientOptions: clientOpts(rec)})
	if err != nil {
		t.Fatal(err)
	}
	cont := svc.NewContainerClient("c1")
	bb := cont.NewBlockBlobClient("dir/sub/b 1.txt")
	lc, err := lease.NewBlobClient(bb, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		call func(ctx context.Context)
		want demand
	}{
		{"put", func(ctx context.Context) { bb.Upload(ctx, nopSeeker("hello"), nil) }, on(KindBlob, "c1/dir/sub/b 1.txt", 1)},
		{"put if-none-match", func(ctx context.Context) {
			bb.Upload(ctx, nopSeeker("x"), &blockblob.UploadOptions{AccessConditions: nil})
		}, on(KindBlob, "c1/dir/sub/b 1.txt", 1)},
		{"get", func(ctx context.Context) { bb.DownloadStream(ctx, nil) }, on(KindBlob, "c1/dir/sub/b 1.txt", 1)},
		{"head", func(ctx context.Context) { bb.GetProperties(ctx, nil) }, on(KindBlob, "c1/dir/sub/b 1.txt", 1)},
		{"lease", func(ctx context.Context) { lc.AcquireLease(ctx, 15, nil) }, on(KindBlob, "c1/dir/sub/b 1.txt", 1)},
		{"container create", func(ctx context.Context) { cont.Create(ctx, nil) }, acctOnly(1)},
		{"list blobs", func(ctx context.Context) {
			cont.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: to.Ptr("dir/")}).NextPage(ctx)
		}, acctOnly(1)},
		{"list containers", func(ctx context.Context) { svc.NewListContainersPager(nil).NextPage(ctx) }, acctOnly(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := demandOf(t, svcBlob, rec, tc.call); got != tc.want {
				t.Errorf("%s %s:\n got %+v\nwant %+v", rec.req.Method, rec.req.URL, got, tc.want)
			}
		})
	}
}

func TestIdentifyTable(t *testing.T) {
	rec := &recorder{}
	svc, err := aztables.NewServiceClientWithNoCredential(testBase, &aztables.ClientOptions{ClientOptions: clientOpts(rec)})
	if err != nil {
		t.Fatal(err)
	}
	tc1 := svc.NewClient("t1")
	entity := func(pk, rk string) []byte {
		b, err := aztablesMarshal(pk, rk)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	query := func(filter string) func(ctx context.Context) {
		return func(ctx context.Context) {
			o := &aztables.ListEntitiesOptions{}
			if filter != "" {
				o.Filter = &filter
			}
			tc1.NewListEntitiesPager(o).NextPage(ctx)
		}
	}
	scan := demand{account: testAccount, amount: 1, accountAmount: 1, post: postEntities, accountFollows: true}
	queryOn := func(pk string) demand {
		d := on(KindPartition, "t1/"+pk, 1)
		d.post, d.accountFollows = postEntities, true
		return d
	}
	tx := func(actions ...aztables.TransactionAction) func(ctx context.Context) {
		return func(ctx context.Context) { tc1.SubmitTransaction(ctx, actions, nil) }
	}
	for _, tc := range []struct {
		name string
		call func(ctx context.Context)
		want demand
	}{
		{"get", func(ctx context.Context) { tc1.GetEntity(ctx, "pk1", "rk1", nil) }, on(KindPartition, "t1/pk1", 1)},
		{"get quoted keys", func(ctx context.Context) { tc1.GetEntity(ctx, "o'brien", "r'1", nil) }, on(KindPartition, "t1/o'brien", 1)},
		{"get doubled quotes", func(ctx context.Context) { tc1.GetEntity(ctx, "a''b", "r", nil) }, on(KindPartition, "t1/a''b", 1)},
		{"get quote before comma", func(ctx context.Context) { tc1.GetEntity(ctx, "x',y)", "r", nil) }, on(KindPartition, "t1/x',y)", 1)},
		{"get trailing quote", func(ctx context.Context) { tc1.GetEntity(ctx, "end'", "r", nil) }, on(KindPartition, "t1/end'", 1)},
		{"get unicode and space", func(ctx context.Context) { tc1.GetEntity(ctx, "ключ 1", "r", nil) }, on(KindPartition, "t1/ключ 1", 1)},
		{"upsert", func(ctx context.Context) { tc1.UpsertEntity(ctx, entity("pk2", "r"), nil) }, on(KindPartition, "t1/pk2", 1)},
		{"update merge", func(ctx context.Context) {
			tc1.UpdateEntity(ctx, entity("pk2", "r"), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge})
		}, on(KindPartition, "t1/pk2", 1)},
		{"delete", func(ctx context.Context) { tc1.DeleteEntity(ctx, "pk3", "r", nil) }, on(KindPartition, "t1/pk3", 1)},
		{"insert", func(ctx context.Context) { tc1.AddEntity(ctx, entity("pk4", "r"), nil) }, on(KindPartition, "t1/pk4", 1)},
		{"insert quoted", func(ctx context.Context) {
			tc1.AddEntity(ctx, []byte(`{"PartitionKey":"it's","RowKey":"r"}`), nil)
		}, on(KindPartition, "t1/it's", 1)},
		// aztables.EDMEntity's MarshalJSON doubles quotes in the keys it
		// writes to the body, so that is the key the service stores.
		{"insert EDMEntity quoted", func(ctx context.Context) { tc1.AddEntity(ctx, entity("it's", "r"), nil) }, on(KindPartition, "t1/it''s", 1)},
		{"batch of 3", tx(
			aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: entity("bp", "1")},
			aztables.TransactionAction{ActionType: aztables.TransactionTypeUpdateMerge, Entity: entity("bp", "2")},
			aztables.TransactionAction{ActionType: aztables.TransactionTypeDelete, Entity: entity("bp", "3")},
		), on(KindPartition, "t1/bp", 3)},
		{"batch led by a delete", tx(
			aztables.TransactionAction{ActionType: aztables.TransactionTypeDelete, Entity: entity("o'neil", "1")},
			aztables.TransactionAction{ActionType: aztables.TransactionTypeDelete, Entity: entity("o'neil", "2")},
		), on(KindPartition, "t1/o'neil", 2)},
		{"batch of upserts", tx(
			aztables.TransactionAction{ActionType: aztables.TransactionTypeInsertReplace, Entity: entity("up", "1")},
		), on(KindPartition, "t1/up", 1)},
		{"query one partition", query("PartitionKey eq 'pk1'"), queryOn("pk1")},
		{"query with escaped quote and range", query("PartitionKey eq 'o''brien' and RowKey ge 'a'"), queryOn("o'brien")},
		{"query same partition in every branch", query("(PartitionKey eq 'a' and RowKey eq '1') or (PartitionKey eq 'a' and RowKey eq '2')"), queryOn("a")},
		{"query pinned under nested and", query("RowKey gt '0' and (Value lt 5 and PartitionKey eq 'n')"), queryOn("n")},
		{"query reversed", query("'rev' eq PartitionKey"), queryOn("rev")},
		{"query two partitions", query("PartitionKey eq 'a' or PartitionKey eq 'b'"), scan},
		{"query partition range", query("PartitionKey ge 'a' and PartitionKey lt 'b'"), scan},
		{"query negated", query("not (PartitionKey eq 'a')"), scan},
		{"query by row only", query("RowKey eq 'x'"), scan},
		{"query or escapes partition", query("PartitionKey eq 'a' and RowKey eq '1' or RowKey eq '2'"), scan},
		{"table scan", query(""), scan},
		{"create table", func(ctx context.Context) { tc1.CreateTable(ctx, nil) }, acctOnly(1)},
		{"delete table", func(ctx context.Context) { tc1.Delete(ctx, nil) }, acctOnly(1)},
		{"list tables", func(ctx context.Context) { svc.NewListTablesPager(nil).NextPage(ctx) }, acctOnly(1)},
		{"table acl", func(ctx context.Context) { tc1.GetAccessPolicy(ctx, nil) }, acctOnly(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := demandOf(t, svcTable, rec, tc.call); got != tc.want {
				t.Errorf("%s %s:\n got %+v\nwant %+v", rec.req.Method, rec.req.URL, got, tc.want)
			}
		})
	}
}

func TestIdentifyQueue(t *testing.T) {
	rec := &recorder{}
	q, err := azqueue.NewQueueClientWithNoCredential(testBase+"/q1", &azqueue.ClientOptions{ClientOptions: clientOpts(rec)})
	if err != nil {
		t.Fatal(err)
	}
	get := func(n float64) demand {
		d := on(KindQueue, "q1", n)
		d.accountAmount, d.post = 1, postMessages
		return d
	}
	for _, tc := range []struct {
		name string
		call func(ctx context.Context)
		want demand
	}{
		{"put", func(ctx context.Context) { q.EnqueueMessage(ctx, "m", nil) }, on(KindQueue, "q1", 1)},
		{"get 5", func(ctx context.Context) {
			q.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: to.Ptr[int32](5)})
		}, get(5)},
		{"get default", func(ctx context.Context) { q.DequeueMessage(ctx, nil) }, get(1)},
		{"peek 3", func(ctx context.Context) {
			q.PeekMessages(ctx, &azqueue.PeekMessagesOptions{NumberOfMessages: to.Ptr[int32](3)})
		}, get(3)},
		{"update", func(ctx context.Context) { q.UpdateMessage(ctx, "id1", "pop", "m2", nil) }, on(KindQueue, "q1", 1)},
		{"delete", func(ctx context.Context) { q.DeleteMessage(ctx, "id1", "pop", nil) }, on(KindQueue, "q1", 1)},
		{"clear", func(ctx context.Context) { q.ClearMessages(ctx, nil) }, on(KindQueue, "q1", 1)},
		{"create queue", func(ctx context.Context) { q.Create(ctx, nil) }, acctOnly(1)},
		{"queue metadata", func(ctx context.Context) { q.GetProperties(ctx, nil) }, acctOnly(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := demandOf(t, svcQueue, rec, tc.call); got != tc.want {
				t.Errorf("%s %s:\n got %+v\nwant %+v", rec.req.Method, rec.req.URL, got, tc.want)
			}
		})
	}
}

// TestIdentifyRawShapes covers shapes the SDKs do not send but the REST API
// allows.
func TestIdentifyRawShapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		svc  service
		raw  string
		want demand
	}{
		{"numofmessages capped at 32", svcQueue, "GET /devstoreaccount1/q1/messages?numofmessages=99 HTTP/1.1\r\nHost: x\r\n\r\n",
			demand{account: testAccount, unit: unitKey{KindQueue, testAccount + "/q1"}, amount: 32, accountAmount: 1, post: postMessages}},
		{"numofmessages any case", svcQueue, "GET /devstoreaccount1/q1/messages?NumOfMessages=7 HTTP/1.1\r\nHost: x\r\n\r\n",
			demand{account: testAccount, unit: unitKey{KindQueue, testAccount + "/q1"}, amount: 7, accountAmount: 1, post: postMessages}},
		{"blob in $root-less container path", svcBlob, "PUT /devstoreaccount1/c/a/b/c HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
			on(KindBlob, "c/a/b/c", 1)},
		{"container trailing slash", svcBlob, "GET /devstoreaccount1/c/?restype=container HTTP/1.1\r\nHost: x\r\n\r\n", acctOnly(1)},
		{"query without parentheses", svcTable, "GET /devstoreaccount1/t1?$filter=PartitionKey%20eq%20'p' HTTP/1.1\r\nHost: x\r\n\r\n",
			demand{account: testAccount, unit: unitKey{KindPartition, testAccount + "/t1/p"}, amount: 1, accountAmount: 1, post: postEntities, accountFollows: true}},
		{"table names are case-insensitive", svcTable, "DELETE /devstoreaccount1/MyTable(PartitionKey='P',RowKey='r') HTTP/1.1\r\nHost: x\r\n\r\n",
			on(KindPartition, "mytable/P", 1)},
		{"batch that is not multipart", svcTable, "POST /devstoreaccount1/$batch HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi", acctOnly(1)},
		{"insert without PartitionKey", svcTable, "POST /devstoreaccount1/t1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", acctOnly(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(tc.raw)))
			if err != nil {
				t.Fatal(err)
			}
			var body []byte
			if needsBody(tc.svc, r) {
				body, _ = io.ReadAll(r.Body)
			}
			if got := identify(tc.svc, r, body); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestKeyArg(t *testing.T) {
	for _, tc := range []struct {
		args, want string
		ok         bool
	}{
		{"PartitionKey='p',RowKey='r'", "p", true},
		{"RowKey='r',PartitionKey='p'", "p", true},
		{"PartitionKey='a''b',RowKey='r'", "a'b", true},
		{"PartitionKey='''',RowKey='r'", "'", true},
		{"PartitionKey = 'spaced' , RowKey='r'", "spaced", true},
		{"XPartitionKey='no',RowKey='r'", "", false},
		{"PartitionKey='unterminated", "", false},
		{"PartitionKey=unquoted", "", false},
		{"", "", false},
	} {
		got, ok := keyArg(tc.args, "PartitionKey")
		if got != tc.want || ok != tc.ok {
			t.Errorf("keyArg(%q) = %q, %v; want %q, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

// nopSeeker is a ReadSeekCloser over s.
func nopSeeker(s string) interface {
	io.ReadSeekCloser
} {
	return readSeekNopCloser{strings.NewReader(s)}
}

type readSeekNopCloser struct{ *strings.Reader }

func (readSeekNopCloser) Close() error { return nil }
