package main

// tongo's header does not declare emulator_version, but its libemulator
// exports it (the TON emulator's own version call: a JSON object with the
// commit hash and date, in a malloc'd string). The library is linked in by
// tongo's txemulator package, which the fee estimator uses.

/*
#include <stdlib.h>
extern const char *emulator_version(void);
*/
import "C"

import "unsafe"

func libEmulatorVersion() string {
	p := C.emulator_version()
	if p == nil {
		return ""
	}
	defer C.free(unsafe.Pointer(p))
	return C.GoString(p)
}
