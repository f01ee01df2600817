package testenv

import (
	"os/exec"
	"testing"
)

// Chromium returns the path of a Chromium for headless browser tests
// (Debian's `chromium`; .ci/run installs it), or skips (fails under
// TEST_REQUIRE_SERVICES=1).
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	missing(t, "TEST_REQUIRE_SERVICES", "no chromium on PATH (apt-get install -y chromium); browser tests skipped")
	return ""
}
