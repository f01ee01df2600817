package main

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// runVersion prints what this binary is: the module version, the commit it
// was built from (and whether the work tree had changes), the Go release,
// and the TON emulator library fee estimates and previews run on.
func runVersion(_ context.Context, args []string, e *env) error {
	fs := newFlags(e, "version", "tonql version", "Prints the version of tonql, the commit it was built from, Go's version and the TON emulator's.")
	if err := fs.parseAll(args, nil); err != nil {
		return err
	}
	for _, l := range versionLines() {
		fmt.Fprintln(e.stdout, l)
	}
	return nil
}

func versionLines() []string {
	version, commit, built, tongo := "(unknown: built without module information)",
		"(unknown: built without VCS information: go run, a test, or -buildvcs=false)", "", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version // "(devel)" for a build inside the work tree
		settings := map[string]string{}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		if rev := settings["vcs.revision"]; rev != "" {
			commit = rev
			if settings["vcs.modified"] == "true" {
				commit += " (dirty: built with uncommitted changes)"
			}
			built = settings["vcs.time"]
		}
		for _, d := range bi.Deps {
			if d.Path == "github.com/tonkeeper/tongo" {
				tongo = d.Version
				if d.Replace != nil {
					tongo += " => " + d.Replace.Path + " " + d.Replace.Version
				}
			}
		}
	}
	lines := []string{"tonql " + version, "commit: " + commit}
	if built != "" {
		lines = append(lines, "commit time: "+built)
	}
	lines = append(lines, "go: "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH)
	return append(lines, "emulator: "+emulatorVersion(tongo))
}

// emulatorVersion names the libemulator build inside tongo: the TON
// commit and its date, as the library reports them (emulator_version()),
// with the tongo release that ships it.
func emulatorVersion(tongo string) string {
	lib := "libemulator"
	var v struct {
		Hash string `json:"emulatorLibCommitHash"`
		Date string `json:"emulatorLibCommitDate"`
	}
	if raw := libEmulatorVersion(); raw != "" {
		if err := json.Unmarshal([]byte(raw), &v); err == nil && v.Hash != "" {
			lib = fmt.Sprintf("TON %s (%s)", v.Hash, strings.TrimSpace(v.Date))
		} else {
			lib = strings.TrimSpace(raw)
		}
	}
	if tongo == "" {
		return lib
	}
	return lib + ", from tongo " + tongo
}
