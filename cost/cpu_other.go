//go:build !linux

package cost

// threadCPU is not known here: Work falls back to wall time.
func threadCPU() (int64, bool) { return 0, false }
