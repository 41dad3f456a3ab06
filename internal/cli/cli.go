// Package cli holds what the sim and simlab commands share: the
// command docs behind their --help, flag parsing, the one-line error
// and exit-status conventions, and the signal handling of Run.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// UsageError marks errors caused by the command line or the input files.
type UsageError struct{ Err error }

func (u UsageError) Error() string { return u.Err.Error() }
func (u UsageError) Unwrap() error { return u.Err }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, a ...any) error { return UsageError{fmt.Errorf(format, a...)} }

// ExitStatus is an error that Run turns into its exit status without
// printing anything (sim's status when it ran simlab, which printed its
// own errors).
type ExitStatus int

func (e ExitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// Dispatch runs one command line; ctx is cancelled by SIGINT or SIGTERM.
type Dispatch func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// Run executes the command line args with dispatch and returns the exit
// status: 0, 2 for a UsageError, 130 for an InterruptedError, 1 for other
// errors (printed as one line "sim: …" on stderr), 3 for a panic. A
// HelpRequest prints the command's help with WriteCommandHelp on stdout,
// status 0.
func Run(args []string, stdout, stderr io.Writer, dispatch Dispatch) (code int) {
	defer func() {
		// Nothing a user feeds in may show a panic trace: report one line.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "sim: internal error: %v\n", r)
			code = 3
		}
	}()
	// Ctrl-C and SIGTERM cancel ctx: runs stop after the current step.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := dispatch(ctx, args, stdout, stderr)
	if err == nil {
		return 0
	}
	var hr HelpRequest
	var es ExitStatus
	if errors.As(err, &es) {
		return int(es)
	}
	if errors.As(err, &hr) {
		// -h or --help on a command: its help, on stdout, success.
		WriteCommandHelp(stdout, hr.FS)
		return 0
	}
	// Every error is one line, also one that wraps a multi-line message.
	fmt.Fprintf(stderr, "sim: %s\n", OneLine(err.Error()))
	var ue UsageError
	var ie InterruptedError
	switch {
	case errors.As(err, &ue):
		return 2
	case errors.As(err, &ie):
		return 130
	}
	return 1
}

// OneLine joins the lines of a message (errors.Join's, for one) with "; ".
func OneLine(msg string) string {
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

// ParseInterspersed parses flags that may appear before, between or after
// positional arguments, and returns the positional ones.
// Integer flags also take an exact integer in float notation (1e3), and
// -h, -help or --help returns a HelpRequest for fs's command.
func ParseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	acceptFloatIntegers(fs)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, HelpRequest{fs}
			}
			return nil, Usagef("%v (sim %s --help lists the flags)", err, fs.Name())
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func NewFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by run
	return fs
}

// InterruptedError reports a run stopped by SIGINT or SIGTERM after its
// outputs were closed.
type InterruptedError struct{ Msg string }

func (e InterruptedError) Error() string { return e.Msg }

func Interruptedf(format string, a ...any) error {
	return InterruptedError{fmt.Sprintf(format, a...)}
}

// IsTerminal reports whether w is a terminal (a character device).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
