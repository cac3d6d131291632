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
	if parts, _ := batchParts("application/json", []byte(`{"odata.error":{}}`)); parts != nil {
		t.Errorf("a JSON answer has no parts, got %v", parts)
	}
}
