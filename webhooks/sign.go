package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Sign is a delivery's X-Tonql-Signature: "v1=" and the hex HMAC-SHA256,
// keyed with the hook's secret, of the X-Tonql-Timestamp value (unix
// seconds), a dot and the body. Signing the timestamp with the body lets
// a receiver refuse an old delivery replayed to it (Verify).
func Sign(secret, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return "v1=" + hex.EncodeToString(m.Sum(nil))
}

// Verify is what a receiver checks: the signature is the hook's, over this
// timestamp and body, and the timestamp is within tolerance of now (an
// older delivery is a replay; retries are signed afresh, so a genuine one
// is never old).
func Verify(secret, timestamp, signature string, body []byte, now time.Time, tolerance time.Duration) error {
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return errors.New("timestamp: not unix seconds")
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return errors.New("timestamp: outside the tolerance (a replay, or a clock far off)")
	}
	if !strings.HasPrefix(signature, "v1=") || !hmac.Equal([]byte(signature), []byte(Sign(secret, timestamp, body))) {
		return errors.New("signature: does not match")
	}
	return nil
}
