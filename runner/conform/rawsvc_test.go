package conform

import (
	"slices"
	"testing"
)

// batchParts reads each part's status of a batch response in order, from
// a change set nested in the batch, and counts a part that holds no HTTP
// response (Azurite 3.37.0 writes a stray boundary line into the part of
// an over-long change set) as status 0.
func TestBatchParts(t *testing.T) {
	body := "--batchresponse_1\r\nContent-Type: multipart/mixed; boundary=changesetresponse_1\r\n\r\n" +
		"--changesetresponse_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
		"HTTP/1.1 204 No Content\r\nDataServiceVersion: 3.0;\r\n\r\n\r\n" +
		"--changesetresponse_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
		"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n\r\n{\"odata.error\":{\"code\":\"InvalidDuplicateRow\",\"message\":{\"value\":\"1:dup\"}}}\r\n" +
		"--changesetresponse_1\r\nContent-Type: application/http\r\n\r\nchangesetresponse_1\r\nHTTP/1.1 400 Bad Request\r\n\r\n\r\n" +
		"--changesetresponse_1--\r\n--batchresponse_1--\r\n"
	parts, failed := batchParts("multipart/mixed; boundary=batchresponse_1", []byte(body))
	if !slices.Equal(parts, []int{204, 400, 0}) {
		t.Errorf("parts %v, want [204 400 0]", parts)
	}
	if failed == nil || *failed != 1 {
		t.Errorf("failed index %v, want 1", failed)
	}
	// A Blob Batch response: parts not nested, a part's headers ended by
	// the delimiter's CRLF alone (as the reference's example is written).
	blob := "--batchresponse_2\r\nContent-Type: application/http\r\nContent-ID: 0\r\n\r\n" +
		"HTTP/1.1 202 Accepted\r\nx-ms-delete-type-permanent: true\r\nx-ms-version: 2018-11-09\r\n" +
		"\r\n--batchresponse_2\r\nContent-Type: application/http\r\nContent-ID: 1\r\n\r\n" +
		"HTTP/1.1 403 Server failed to authenticate the request.\r\nx-ms-error-code: AuthenticationFailed\r\n\r\n<Error/>\r\n" +
		"--batchresponse_2--\r\n"
	if parts, _ := batchParts("multipart/mixed; boundary=batchresponse_2", []byte(blob)); !slices.Equal(parts, []int{202, 403}) {
		t.Errorf("Blob Batch parts %v, want [202 403]", parts)
	}
	if parts, _ := batchParts("application/json", []byte(`{"odata.error":{}}`)); parts != nil {
		t.Errorf("a JSON answer has no parts, got %v", parts)
	}
}
