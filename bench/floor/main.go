// Command floor is the least a Go HTTP server can do for Q1: net/http,
// reading the POST body and answering fixed bytes, nothing else. Beside
// the gateway in bench/tail.sh it separates what the gateway adds to a
// small query's latency from what Go's HTTP server and scheduler give
// any program on the same machine.
//
// It starts as the gateway does, so that the scripts' one starter
// (e2e/gateway.sh) starts it too: it logs a JSON "listening" line with
// the address it got (-addr 127.0.0.1:0 for a free port), answers /readyz
// as it answers everything, and exits 0 on SIGTERM.
//
//	go run ./bench/floor -addr 127.0.0.1:0 -body answer.json
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18495", "where to listen")
	file := flag.String("body", "", "the file whose bytes every request is answered with")
	flag.Parse()
	body, err := os.ReadFile(*file)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(2)
	}
	length := strconv.Itoa(len(body))
	srv := &http.Server{
		ReadHeaderTimeout: 5 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, err := io.Copy(io.Discard, r.Body); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", length)
			w.Write(body)
		}),
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	slog.New(slog.NewJSONHandler(os.Stderr, nil)).Info("listening", "addr", ln.Addr().String())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}
