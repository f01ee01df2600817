package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// flags is a subcommand's flag set that knows, for its help text, which
// environment variable each flag reads and its built-in default.
type flags struct {
	*flag.FlagSet
	usage string            // "tonql import [flags] PATH...", first line of the help
	about string            // what the command does, under it
	env   map[string]string // flag name → environment variable
	def   map[string]string // flag name → built-in default as shown in help
	e     *env
}

func newFlags(e *env, name, usage, about string) *flags {
	f := &flags{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), usage: usage, about: about,
		env: map[string]string{}, def: map[string]string{}, e: e}
	f.SetOutput(e.stderr)
	// The flag package calls Usage on -h as well as after its parse error
	// message: parse prints the help, or the pointer to it, itself, so -h
	// shows the command's help and nothing else.
	f.Usage = func() {}
	return f
}

// fromEnv records that flag name defaults to environment variable key,
// with def as the built-in default.
func (f *flags) fromEnv(name, key, def string) {
	f.env[name], f.def[name] = key, def
}

// errHelp is -h or --help: the help was printed, the command exits 0.
var errHelp = errors.New("help requested")

// usageError is a command line that does not parse: exit code 2. printed
// tells that the message is out already (the flag package prints its own).
type usageError struct {
	err     error
	printed bool
}

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// parseAll parses the command line of a command that takes no
// positional argument, then checks cfg (nil: a command without settings).
func (f *flags) parseAll(args []string, cfg *config) error {
	if err := f.parse(args); err != nil {
		return err
	}
	if f.NArg() > 0 {
		return usageError{err: fmt.Errorf("unexpected argument %q", f.Arg(0))}
	}
	if cfg == nil {
		return nil
	}
	return cfg.validate()
}

// parse parses args; -h prints the help to stdout and returns errHelp.
func (f *flags) parse(args []string) error {
	err := f.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		f.printHelp(f.e.stdout)
		return errHelp
	case err != nil:
		fmt.Fprintf(f.e.stderr, "Run 'tonql %s -h' for its flags.\n", f.Name())
		return usageError{err: err, printed: true}
	}
	return nil
}

// printHelp lists this command's own flags with their environment variable
// and default. Defaults are the built-in ones, never a value from the
// environment, so the help cannot print a password.
func (f *flags) printHelp(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n", f.usage)
	if f.about != "" {
		fmt.Fprintf(w, "\n%s\n", f.about)
	}
	n := 0
	f.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		fmt.Fprintln(w, "\nThis command has no flags.")
		return
	}
	fmt.Fprintln(w, "\nflags:")
	f.VisitAll(func(fl *flag.Flag) {
		kind, text := flag.UnquoteUsage(fl)
		head := "  -" + fl.Name
		if kind != "" {
			head += " " + kind
		}
		fmt.Fprintf(w, "%s\n      %s\n", head, text)
		var notes []string
		if key := f.env[fl.Name]; key != "" {
			notes = append(notes, "env "+key)
		}
		def, ok := f.def[fl.Name]
		if !ok {
			def = fl.DefValue
		}
		if def != "" {
			notes = append(notes, "default "+def)
		}
		if len(notes) > 0 {
			fmt.Fprintf(w, "      (%s)\n", strings.Join(notes, ", "))
		}
	})
}
