package cost

import "syscall"

// rusageThread is Linux's RUSAGE_THREAD: the calling thread's own times.
const rusageThread = 1

// threadCPU is the CPU time the calling OS thread has used; ok is false
// where the kernel cannot tell.
func threadCPU() (d int64, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
