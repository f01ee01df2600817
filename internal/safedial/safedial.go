// Package safedial dials only public addresses: the one guard of every
// outbound request a chain user can aim (off-chain token metadata links,
// webhook URLs), so a URL cannot make the server reach its own network.
// The check runs on the address actually dialed, after every resolution:
// a name that resolves to a private address, a DNS answer that changed
// since it was validated (rebinding), and a redirect to a private host are
// all refused before a packet is sent.
package safedial

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// Errors a dial fails with (wrapped; test with errors.Is).
var (
	// ErrPrivate: the address dialed is not public.
	ErrPrivate = errors.New("not a public address")
	// ErrDNS: the host did not resolve.
	ErrDNS = errors.New("host does not resolve")
	// ErrBadAddress: the dial address is not host:port.
	ErrBadAddress = errors.New("bad address")
)

// Options configure a Dialer.
type Options struct {
	// AllowPrivate lets dials reach loopback, private, link-local and
	// other non-public addresses (METADATA_ALLOW_PRIVATE,
	// WEBHOOK_ALLOW_PRIVATE: tests and private networks).
	AllowPrivate bool
	// ConnectTimeout bounds each connection attempt.
	ConnectTimeout time.Duration
	// LookupHost resolves a host name; default the system resolver. Tests
	// use it to give a public-looking name a loopback address (DNS
	// rebinding), which the dial-time check must refuse.
	LookupHost func(ctx context.Context, host string) ([]netip.Addr, error)
	// ExemptAddrs are "ip:port" addresses dialed even when AllowPrivate is
	// off. For tests only: a test server listens on loopback, and the test
	// exempts exactly that listener to show every other private address
	// refused. Never set by configuration.
	ExemptAddrs []string
}

// DialContext returns a dial function for http.Transport.DialContext that
// resolves the host and dials its addresses in turn, refusing each that is
// not public (unless allowed).
func DialContext(o Options) func(ctx context.Context, network, addr string) (net.Conn, error) {
	lookup := o.LookupHost
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	exempt := map[string]bool{}
	for _, a := range o.ExemptAddrs {
		exempt[a] = true
	}
	dialer := &net.Dialer{
		Timeout: o.ConnectTimeout,
		Control: func(network, address string, _ syscall.RawConn) error {
			if o.AllowPrivate || exempt[address] {
				return nil
			}
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: unparsable address %q", ErrPrivate, address)
			}
			if !PublicAddr(ap.Addr()) {
				return fmt.Errorf("%w: %s", ErrPrivate, ap.Addr())
			}
			return nil
		},
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadAddress, err)
		}
		var ips []netip.Addr
		if ip, err := netip.ParseAddr(host); err == nil {
			ips = []netip.Addr{ip}
		} else if ips, err = lookup(ctx, host); err != nil || len(ips) == 0 {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%w: %s: %v", ErrDNS, host, err)
		}
		var errs []error
		for _, ip := range ips {
			c, err := dialer.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
			if err == nil {
				return c, nil
			}
			errs = append(errs, err)
		}
		return nil, errors.Join(errs...)
	}
}

// PublicAddr tells whether ip is a public unicast address: not loopback,
// private (RFC 1918, fc00::/7), link-local, multicast, unspecified, nor
// one of the special-purpose ranges (CGNAT 100.64/10, 0/8, benchmarking
// 198.18/15, documentation, reserved 240/4, NAT64 and 6to4 forms of the
// above are judged by their IPv4 part).
func PublicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range specialPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64.Contains(ip): // judge the embedded IPv4
			return PublicAddr(netip.AddrFrom4([4]byte(b[12:16])))
		case sixToFour.Contains(ip):
			return PublicAddr(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	return true
}

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// specialPrefixes are special-purpose ranges (IANA registries) that
// netip's predicates do not cover.
var specialPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("::/128"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2001::/23"),
}
