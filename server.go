// Command gateway serves a game's reference catalogue as GraphQL, and
// re-serves the upstream's REST collections byte for byte.
//
// Run it with no flags to serve the catalogue embedded in the binary:
//
//	go run .
//
// Every flag has an environment variable; the flag wins. See -h.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/catalogue-gateway/gateway/internal/buildinfo"
	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gateway"
	"github.com/catalogue-gateway/gateway/internal/memlimit"
	"github.com/catalogue-gateway/gateway/internal/telemetry"
)

func main() {
	limit, err := memlimit.CgroupLimit(os.ReadFile)
	if err != nil {
		// Unreadable counts as no limit: Go's defaults are safe without
		// one, and memlimit.Log reports what was chosen.
		limit = 0
	}
	gc := memlimit.Choose(os.Getenv, limit)
	gc.Apply()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if gc.KeepsHeadroom() {
		go memlimit.KeepHeadroom(ctx)
	}
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run parses the configuration, serves until ctx ends and returns the exit
// status: 0 after a clean shutdown, 2 for a bad flag or environment value
// or an address it cannot listen on, 1 for anything else. `healthcheck` as
// the first argument checks a running gateway instead (see healthCheck);
// -version prints the build's version on stdout.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "healthcheck" {
		return healthCheck(ctx, args[1:], getenv, stderr)
	}
	cfg, err := config.Parse(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}

	if err != nil {
		fmt.Fprintln(stderr, "gateway:", err)
		return 2
	}
	if cfg.Version {
		fmt.Fprintln(stdout, buildinfo.Get())
		return 0
	}
	// A trusted documents file is read here, before anything is logged,
	// so that a bad one is refused as a bad flag is.
	if cfg.TrustedDocumentsOn() {
		if _, err := gateway.ReadTrustedDocuments(cfg); err != nil {
			fmt.Fprintln(stderr, "gateway:", err)
			return 2
		}
	}
	// Listening comes before the first log line: an address in use is
	// the commonest first-run mistake (a second gateway, another server
	// on 8080), and is a configuration error like a bad flag, told in one
	// line that says what to change.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		fmt.Fprintf(stderr, "gateway: cannot listen on %s: %v; choose another address with -addr (e.g. -addr :9090)\n", cfg.Addr, listenCause(err))
		return 2
	}
	logs := telemetry.NewLogBuffer(stderr)
	defer logs.Close()
	logger := telemetry.NewLogger(logs, cfg.LogFormat.Resolve(stderr), cfg.LogLevel.Level)
	memlimit.Log(logger, getenv)
	if err := gateway.Run(ctx, cfg, ln, logger); err != nil {
		logger.Error("gateway stopped", "err", err)
		return 1
	}
	return 0
}

// listenCause is what net.Listen's error says once the operation and
// address, which the caller's message already names, are taken off:
// "address already in use", "permission denied".
func listenCause(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		var sys *os.SyscallError
		if errors.As(op.Err, &sys) {
			return sys.Err
		}
		return op.Err
	}
	return err
}

// healthCheck is `gateway healthcheck [flags]`: it asks the gateway that
// the same flags and environment would start for /healthz, on loopback,
// and returns 0 if it answers 200, else 1 (2 for a bad flag or
// environment value). It is the container's HEALTHCHECK, for an image
// that has no shell and no curl.
func healthCheck(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) int {
	cfg, err := config.Parse(args, getenv, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "gateway healthcheck:", err)
		return 2
	}
	if err := gateway.HealthCheck(ctx, cfg); err != nil {
		fmt.Fprintln(stderr, "gateway healthcheck:", err)
		return 1
	}
	return 0
}
