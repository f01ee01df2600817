package getmethod

// The TVM part of the emulator library that tongo ships (libemulator) is
// called here directly, through its C API: tongo's Go wrapper drops the gas
// a get method used (toncenter answers it, and @ton/ton requires it) and
// always sets the VM's clock to the wall clock. The library is already
// loaded by the process (tongo's packages link it, see the blank import),
// so its functions are looked up by name rather than linked twice.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

typedef void *(*tvm_create_fn)(const char *, const char *, int);
typedef bool (*tvm_set_libraries_fn)(void *, const char *);
typedef bool (*tvm_set_c7_fn)(void *, const char *, uint32_t, uint64_t, const char *, const char *);
typedef bool (*tvm_set_config_object_fn)(void *, void *);
typedef bool (*tvm_set_gas_limit_fn)(void *, int64_t);
typedef const char *(*tvm_run_get_method_fn)(void *, int, const char *);
typedef void (*tvm_destroy_fn)(void *);
typedef void *(*config_create_fn)(const char *);
typedef void (*config_destroy_fn)(void *);

static void *lookup(const char *name) { return dlsym(RTLD_DEFAULT, name); }

static void *tvm_create(void *f, const char *code, const char *data) { return ((tvm_create_fn)f)(code, data, 0); }
static bool tvm_set_libraries(void *f, void *e, const char *libs) { return ((tvm_set_libraries_fn)f)(e, libs); }
static bool tvm_set_c7(void *f, void *e, const char *addr, uint32_t now, uint64_t balance, const char *seed) {
	return ((tvm_set_c7_fn)f)(e, addr, now, balance, seed, NULL);
}
static bool tvm_set_config_object(void *f, void *e, void *cfg) { return ((tvm_set_config_object_fn)f)(e, cfg); }
static bool tvm_set_gas_limit(void *f, void *e, int64_t gas) { return ((tvm_set_gas_limit_fn)f)(e, gas); }
static const char *tvm_run_get_method(void *f, void *e, int method, const char *stack) {
	return ((tvm_run_get_method_fn)f)(e, method, stack);
}
static void tvm_destroy(void *f, void *e) { ((tvm_destroy_fn)f)(e); }
static void *config_create(void *f, const char *cfg) { return ((config_create_fn)f)(cfg); }
static void config_destroy(void *f, void *cfg) { ((config_destroy_fn)f)(cfg); }
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"unsafe"

	"github.com/tonkeeper/tongo/ton"
	_ "github.com/tonkeeper/tongo/tvm" // links libemulator and silences its log (its init)
)

// lib holds the library's TVM functions.
type lib struct {
	create, setLibraries, setC7, setConfigObject, setGasLimit, run, destroy unsafe.Pointer
	configCreate, configDestroy                                             unsafe.Pointer
}

var (
	libOnce sync.Once
	libFns  lib
	libErr  error
)

func library() (*lib, error) {
	libOnce.Do(func() {
		get := func(name string) unsafe.Pointer {
			cs := C.CString(name)
			defer C.free(unsafe.Pointer(cs))
			p := C.lookup(cs)
			if p == nil && libErr == nil {
				libErr = fmt.Errorf("emulator library: %s not found", name)
			}
			return p
		}
		libFns = lib{
			create: get("tvm_emulator_create"), setLibraries: get("tvm_emulator_set_libraries"),
			setC7: get("tvm_emulator_set_c7"), setConfigObject: get("tvm_emulator_set_config_object"),
			setGasLimit: get("tvm_emulator_set_gas_limit"), run: get("tvm_emulator_run_get_method"),
			destroy: get("tvm_emulator_destroy"), configCreate: get("emulator_config_create"),
			configDestroy: get("emulator_config_destroy"),
		}
	})
	return &libFns, libErr
}

// vmConfig is a parsed blockchain config in the library, shared read-only
// by the emulators of concurrent runs. The library does not own it.
type vmConfig struct {
	ptr unsafe.Pointer
}

func newVMConfig(configB64 string) (*vmConfig, error) {
	l, err := library()
	if err != nil {
		return nil, err
	}
	cs := C.CString(configB64)
	defer C.free(unsafe.Pointer(cs))
	p := C.config_create(l.configCreate, cs)
	if p == nil {
		return nil, errors.New("emulator library refused the config")
	}
	return &vmConfig{ptr: p}, nil
}

func (c *vmConfig) free() {
	l, _ := library()
	C.config_destroy(l.configDestroy, c.ptr)
}

// call is one get method run on one account.
type call struct {
	code, data string // base64 BOCs
	libs       string // base64 BOC of the libraries it needs, or ""
	address    string // raw
	now        uint32
	balance    uint64
	seed       [32]byte
	gasLimit   int64
	method     int
	stack      string // base64 BOC of the input VmStack

	libHashes []ton.Bits256 // libraries code and data refer to
}

// vmResult is the library's answer.
type vmResult struct {
	Success  bool        `json:"success"`
	Error    string      `json:"error"`
	ExitCode int         `json:"vm_exit_code"`
	Stack    string      `json:"stack"`
	GasUsed  json.Number `json:"gas_used"`
	Missing  *string     `json:"missing_library"`
}

// gas reads gas_used, which the library writes as a number or a string.
func (r vmResult) gas() int64 {
	s := string(r.GasUsed)
	if u, err := strconv.Unquote(s); err == nil {
		s = u
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

func (c *call) run(cfg *vmConfig) (vmResult, error) {
	var res vmResult
	l, err := library()
	if err != nil {
		return res, err
	}
	code, data := C.CString(c.code), C.CString(c.data)
	defer C.free(unsafe.Pointer(code))
	defer C.free(unsafe.Pointer(data))
	e := C.tvm_create(l.create, code, data)
	if e == nil {
		return res, errors.New("the account's code or data does not load")
	}
	defer C.tvm_destroy(l.destroy, e)
	if c.libs != "" {
		libs := C.CString(c.libs)
		defer C.free(unsafe.Pointer(libs))
		if !C.tvm_set_libraries(l.setLibraries, e, libs) {
			return res, errors.New("libraries do not load")
		}
	}
	C.tvm_set_config_object(l.setConfigObject, e, cfg.ptr)
	addr := C.CString(c.address)
	defer C.free(unsafe.Pointer(addr))
	seed := C.CString(fmt.Sprintf("%x", c.seed[:]))
	defer C.free(unsafe.Pointer(seed))
	if !C.tvm_set_c7(l.setC7, e, addr, C.uint32_t(c.now), C.uint64_t(c.balance), seed) {
		return res, errors.New("cannot set up the VM's context")
	}
	if !C.tvm_set_gas_limit(l.setGasLimit, e, C.int64_t(c.gasLimit)) {
		return res, errors.New("cannot set the gas limit")
	}
	stack := C.CString(c.stack)
	defer C.free(unsafe.Pointer(stack))
	out := C.tvm_run_get_method(l.run, e, C.int(c.method), stack)
	if out == nil {
		return res, errors.New("no answer from the VM")
	}
	defer C.free(unsafe.Pointer(out))
	if err := json.Unmarshal([]byte(C.GoString(out)), &res); err != nil {
		return res, fmt.Errorf("VM answer: %w", err)
	}
	return res, nil
}
