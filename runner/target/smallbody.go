package target

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
)

// smallBodyLimit is the largest request body sent from memory: past a few
// KiB the copy costs about what the second write saves.
const smallBodyLimit = 16 << 10

// bodyInMemory reads a small request body into memory before it is sent.
// net/http writes the headers and the body of a request in one write when
// the body is a reader it knows to be in memory, and otherwise flushes the
// headers first (it cannot tell whether the body is a pipe that waits for
// the response). The SDK wraps every body in its own retryable reader, so
// without this each Put Blob costs two write system calls and, on the
// wire, two segments where one does: about 3 % of a call's CPU on the
// BlobClients fixture. A larger body is streamed as it was.
func bodyInMemory(req *http.Request) error {
	n := req.ContentLength
	if req.Body == nil || req.Body == http.NoBody || n <= 0 || n > smallBodyLimit {
		return nil
	}
	// A fresh buffer each time: net/http may still be reading a body after
	// the response came back (a service can answer 412 before it has read
	// it), so one buffer reused by the next request would race.
	buf := make([]byte, n+1)
	got, err := io.ReadFull(req.Body, buf)
	req.Body.Close()
	if err == io.EOF || err == io.ErrUnexpectedEOF { // shorter than buf: what is expected
		err = nil
	}
	if err != nil {
		return err
	}
	if int64(got) != n { // as net/http says it
		return fmt.Errorf("http: ContentLength=%d with Body length %d", n, got)
	}
	req.Body = io.NopCloser(bytes.NewReader(buf[:n]))
	return nil
}
