package safedial_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/safedial"
)

// The check is on the address dialed: a loopback listener is refused by
// address and by a name resolving to it, reached when exempt or allowed;
// a name that does not resolve is ErrDNS.
func TestDialRefusesPrivate(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		if host == "rebound.example.com" {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, errors.New("no such host")
	}
	ctx := context.Background()
	dial := safedial.DialContext(safedial.Options{LookupHost: lookup})
	for _, addr := range []string{ln.Addr().String(), "rebound.example.com:" + port} {
		_, err := dial(ctx, "tcp", addr)
		require.ErrorIs(t, err, safedial.ErrPrivate, addr)
	}
	_, err = dial(ctx, "tcp", "nowhere.example.com:80")
	require.ErrorIs(t, err, safedial.ErrDNS)
	_, err = dial(ctx, "tcp", "no-port")
	require.ErrorIs(t, err, safedial.ErrBadAddress)

	for _, o := range []safedial.Options{{LookupHost: lookup, ExemptAddrs: []string{ln.Addr().String()}}, {LookupHost: lookup, AllowPrivate: true}} {
		c, err := safedial.DialContext(o)(ctx, "tcp", "rebound.example.com:"+port)
		require.NoError(t, err)
		c.Close()
	}
	require.False(t, safedial.PublicAddr(netip.MustParseAddr("10.0.0.1")))
	require.True(t, safedial.PublicAddr(netip.MustParseAddr("1.1.1.1")))
}
