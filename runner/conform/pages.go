package conform

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// defaultPageLength is a page-blob range's length when a step names none:
// one page.
const defaultPageLength = 512

// pageCall performs a page-blob step (blob.page.*). The sequence-number
// conditions and x-ms-blob-sequence-number travel as headers, as written,
// like every other condition (see headers); the SDK is given only what the
// operation itself needs. Its body, judged by expect.body, is what the
// answer says beyond its headers: the page ranges of blob.page.ranges
// ("START-END,...", then "; cleared START-END,..." for a diff), the new
// number of blob.page.seqnum, "sequence_number=N content_length=M" of
// blob.page.getprops.
func (rr *RuleRun) pageCall(ctx context.Context, st *conformance.Step) (callOut, error) {
	p := &st.Page
	h := rr.headers(st)
	setInt := func(name string, v *int64) {
		if v != nil {
			h.Set(name, strconv.FormatInt(*v, 10))
		}
	}
	setInt("x-ms-if-sequence-number-le", p.IfSeqLE)
	setInt("x-ms-if-sequence-number-lt", p.IfSeqLT)
	setInt("x-ms-if-sequence-number-eq", p.IfSeqEQ)
	setInt("x-ms-blob-sequence-number", p.SequenceNumber)
	ctx = target.WithHeaders(ctx, h)

	pb := rr.T.Blob.NewContainerClient(rr.container(st.Container)).NewPageBlobClient(st.Blob)
	if st.Snapshot != nil {
		sb, err := pb.WithSnapshot(rr.value(st.Snapshot))
		if err != nil {
			return callOut{}, err
		}
		pb = sb
	}
	rng := func() blob.HTTPRange {
		r := blob.HTTPRange{Count: defaultPageLength}
		if p.Offset != nil {
			r.Offset = *p.Offset
		}
		if p.Length != nil {
			r.Count = *p.Length
		}
		return r
	}
	var err error
	switch st.Op {
	case "blob.page.create":
		_, err = pb.Create(ctx, *p.Size, nil)
	case "blob.page.put":
		r := rng()
		body := make([]byte, max(r.Count, 0))
		if st.Body != nil {
			copy(body, *st.Body)
		}
		_, err = pb.UploadPages(ctx, streaming.NopCloser(bytes.NewReader(body)), r, nil)
	case "blob.page.clear":
		_, err = pb.ClearPages(ctx, rng(), nil)
	case "blob.page.ranges":
		if p.PrevSnapshot != nil {
			prev := rr.value(p.PrevSnapshot)
			r, rerr := pb.NewGetPageRangesDiffPager(&pageblob.GetPageRangesDiffOptions{PrevSnapshot: &prev}).NextPage(ctx)
			return callOut{body: formatPageList(r.PageList)}, rerr
		}
		r, rerr := pb.NewGetPageRangesPager(nil).NextPage(ctx)
		return callOut{body: formatPageList(r.PageList)}, rerr
	case "blob.page.seqnum":
		action := pageblob.SequenceNumberActionType(*p.SequenceNumberAction)
		r, serr := pb.UpdateSequenceNumber(ctx, &pageblob.UpdateSequenceNumberOptions{ActionType: &action})
		if serr != nil || r.BlobSequenceNumber == nil {
			return callOut{}, serr
		}
		return callOut{body: strconv.FormatInt(*r.BlobSequenceNumber, 10)}, nil
	case "blob.page.resize":
		_, err = pb.Resize(ctx, *p.Size, nil)
	case "blob.page.getprops":
		r, gerr := pb.GetProperties(ctx, nil)
		if gerr != nil {
			return callOut{}, gerr
		}
		var seq, length int64
		if r.BlobSequenceNumber != nil {
			seq = *r.BlobSequenceNumber
		}
		if r.ContentLength != nil {
			length = *r.ContentLength
		}
		return callOut{body: fmt.Sprintf("sequence_number=%d content_length=%d", seq, length)}, nil
	default:
		return callOut{}, fmt.Errorf("stormcheck cannot run op %s yet", st.Op)
	}
	return callOut{}, err
}

// formatPageList writes a page list as "START-END,..." (inclusive byte
// offsets, as the service lists them), then "; cleared START-END,..." for
// the cleared ranges a diff lists.
func formatPageList(l pageblob.PageList) string {
	var pages, cleared []string
	for _, r := range l.PageRange {
		if r != nil && r.Start != nil && r.End != nil {
			pages = append(pages, fmt.Sprintf("%d-%d", *r.Start, *r.End))
		}
	}
	for _, r := range l.ClearRange {
		if r != nil && r.Start != nil && r.End != nil {
			cleared = append(cleared, fmt.Sprintf("%d-%d", *r.Start, *r.End))
		}
	}
	s := strings.Join(pages, ",")
	if len(cleared) > 0 {
		s += "; cleared " + strings.Join(cleared, ",")
	}
	return s
}
