package target

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// A failed entity group transaction comes back as 202 Accepted whose
// multipart body holds the failed operation's own status and error. The
// table SDK reads that body and returns an error carrying the outer 202
// and no error code, so the runner keeps a copy of the body (only for the
// calls that ask, through the context) and reads the inner answer itself.

type bodyKey struct{}

// withBodyCapture asks for a copy of the response body of the calls made
// with ctx; it is stored in *dst.
func WithBodyCapture(ctx context.Context, dst *[]byte) context.Context {
	return context.WithValue(ctx, bodyKey{}, dst)
}

// captureBody is the per-call policy that applies withBodyCapture.
type captureBody struct{}

func (captureBody) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	dst, ok := req.Raw().Context().Value(bodyKey{}).(*[]byte)
	if !ok || resp == nil || resp.Body == nil {
		return resp, err
	}
	b, rerr := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	resp.Body.Close()
	*dst = b
	resp.Body = io.NopCloser(bytes.NewReader(b))
	if rerr != nil && err == nil {
		err = rerr
	}
	return resp, err
}

var (
	innerStatus = regexp.MustCompile(`HTTP/1\.[01] ([1-5][0-9][0-9])`)
	innerCode   = regexp.MustCompile(`"code"\s*:\s*"([^"]+)"`)
)

// batchError turns a transaction's failure into the error of its failed
// operation: the inner status and error code, as a ResponseError on the
// outer response, so that classification and the record see what the
// service said. Other errors are returned unchanged.
func BatchError(err error, body []byte) error {
	re, ok := err.(*azcore.ResponseError)
	if !ok || re.StatusCode != http.StatusAccepted {
		return err
	}
	out := &azcore.ResponseError{StatusCode: http.StatusAccepted, ErrorCode: re.ErrorCode, RawResponse: re.RawResponse}
	for _, m := range innerStatus.FindAllSubmatch(body, -1) {
		if st, _ := strconv.Atoi(string(m[1])); st >= 400 {
			out.StatusCode = st
			break
		}
	}
	if m := innerCode.FindSubmatch(body); m != nil {
		out.ErrorCode = string(m[1])
	}
	return out
}
