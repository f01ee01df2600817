package metadata

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/tokenfixture"
)

// FuzzParse: any bytes either parse within the bounds or fail with
// ErrContent; never a panic, never unbounded output. The corpus starts
// from real contents of the fee-replay block (when the fixtures are
// there) and from each encoding the unit tests build.
func FuzzParse(f *testing.F) {
	dir := os.Getenv("TON_FIXTURES")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "fixtures")
	}
	if contents, err := tokenfixture.Contents(filepath.Join(dir, tokenfixture.ReplayBlock)); err == nil {
		for _, c := range contents {
			f.Add(c.Content)
		}
	}
	f.Add([]byte{})
	f.Add([]byte("te6cc"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse(b)
		if err != nil {
			if c != nil {
				t.Fatal("content with an error")
			}
			return
		}
		switch c.Layout {
		case chain.MetadataOnchain, chain.MetadataSemichain, chain.MetadataOffchain:
		default:
			t.Fatalf("layout %q", c.Layout)
		}
		if len(c.URI) > maxValueBytes {
			t.Fatalf("uri of %d bytes", len(c.URI))
		}
		if n := len(c.Attrs) + len(c.Unknown) + len(c.Skipped); n > maxAttributes {
			t.Fatalf("%d attributes", n)
		}
		for k, v := range c.Attrs {
			if len(v) > maxValueBytes*4/3+4 {
				t.Fatalf("%s: %d bytes", k, len(v))
			}
		}
	})
}
