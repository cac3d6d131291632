package conform

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// appendCall performs an append blob step: Put Blob as an append blob,
// Append Block, Seal Append Blob. Conditions and lease ids travel as
// headers (see headers); the append position and maximum size through the
// SDK's own options.
func (rr *RuleRun) appendCall(ctx context.Context, st *conformance.Step) error {
	ab := rr.T.Blob.NewContainerClient(rr.container(st.Container)).NewAppendBlobClient(st.Blob)
	var err error
	switch st.Op {
	case "blob.append.create":
		meta := map[string]*string{}
		for k, v := range st.Metadata {
			meta[k] = &v
		}
		_, err = ab.Create(ctx, &appendblob.CreateOptions{Metadata: meta})
	case "blob.append":
		var body io.ReadSeekCloser = streaming.NopCloser(strings.NewReader(""))
		switch {
		case st.BodyBytes > 0:
			body = streaming.NopCloser(&filler{n: st.BodyBytes})
		case st.Body != nil:
			body = streaming.NopCloser(strings.NewReader(*st.Body))
		}
		_, err = ab.AppendBlock(ctx, body, &appendblob.AppendBlockOptions{
			AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{AppendPosition: st.AppendPos, MaxSize: st.MaxSize}})
	case "blob.append.seal":
		_, err = ab.Seal(ctx, &appendblob.SealOptions{
			AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{AppendPosition: st.AppendPos}})
	default:
		err = errors.New("stormcheck cannot run op " + st.Op + " yet")
	}
	return err
}

// filler is n bytes of 'a', read and sought without holding them.
type filler struct{ n, off int64 }

func (f *filler) Read(p []byte) (int, error) {
	if f.off >= f.n {
		return 0, io.EOF
	}
	k := int64(len(p))
	if rest := f.n - f.off; k > rest {
		k = rest
	}
	for i := range p[:k] {
		p[i] = 'a'
	}
	f.off += k
	return int(k), nil
}

func (f *filler) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		offset += f.n
	}
	if offset < 0 {
		return 0, errors.New("filler: negative position")
	}
	f.off = offset
	return offset, nil
}
