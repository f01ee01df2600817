// Package netconn gives a long request (a stream, a websocket) the
// connection it is served on, so it can bound what that connection holds
// for a client that stops reading. A server records connections with
// ConnContext (http.Server.ConnContext); without it these do nothing.
package netconn

import (
	"context"
	"net"
	"time"
)

// SendBuffer is the kernel send buffer a stream's connection gets (Linux
// doubles it). Autotuning would grow it to 4 MiB: that much encoded for a
// client that reads nothing, for every such stream.
const SendBuffer = 64 << 10

type connKey struct{}

// ConnContext is http.Server.ConnContext: it records the connection.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

func of(ctx context.Context) net.Conn {
	c, _ := ctx.Value(connKey{}).(net.Conn)
	return c
}

// LimitSendBuffer shrinks the send buffer of the request's connection to
// SendBuffer.
func LimitSendBuffer(ctx context.Context) {
	if c, ok := of(ctx).(interface{ SetWriteBuffer(int) error }); ok {
		_ = c.SetWriteBuffer(SendBuffer)
	}
}

// BoundWrites gives the connection's writes until d from now, lifting the
// bound when ctx ends first: a transport that cannot set deadlines itself
// (gqlgen's websocket) is then sure to give up on a client that reads
// nothing, while one that read again in time keeps its connection.
func BoundWrites(ctx context.Context, d time.Duration) {
	c := of(ctx)
	if c == nil {
		return
	}
	_ = c.SetWriteDeadline(time.Now().Add(d))
	go func() {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			_ = c.SetWriteDeadline(time.Time{})
		case <-t.C:
		}
	}()
}
