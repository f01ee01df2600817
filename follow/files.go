package follow

import (
	"context"
	"fmt"
	"io"

	"github.com/tonql/tonql/ingest"
)

// FilesSource serves chain data files (raw blocks, fee-replay JSON) as a
// chain of masterchain blocks: file i is masterchain block i (from 1). Tests
// and replays drive the follower with it, through the code path the live
// source feeds.
type FilesSource struct {
	files []string
}

// NewFilesSource serves files in the given order.
func NewFilesSource(files []string) *FilesSource { return &FilesSource{files: files} }

func (s *FilesSource) Head(context.Context) (uint32, error) { return uint32(len(s.files)), nil }

func (s *FilesSource) Block(_ context.Context, seqno uint32) (*Block, error) {
	if seqno == 0 {
		return nil, fmt.Errorf("files source: block 0 does not exist, the first is 1")
	}
	if int(seqno) > len(s.files) {
		return nil, io.EOF
	}
	p, err := ingest.ParseFile(s.files[seqno-1])
	if err != nil {
		return nil, err
	}
	return &Block{Seqno: seqno, Utime: maxUtime(p.Transactions), Blocks: 1, Data: merge([]*ingest.Parsed{p})}, nil
}
