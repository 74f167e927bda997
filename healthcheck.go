package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/catalogue-gateway/gateway/internal/config"
)

// healthCheck is `gateway healthcheck [flags]`: it asks the gateway that
// the same flags and environment would start for /healthz, on loopback,
// and returns 0 if it answers 200, else 1. It is the container's
// HEALTHCHECK, for an image that has no shell and no curl.
func healthCheck(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) int {
	cfg, err := config.Parse(args, getenv, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "gateway healthcheck:", err)
		return 2
	}
	host, port, _ := net.SplitHostPort(cfg.Addr) // checked by parseConfig
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	url := "http://" + net.JoinHostPort(host, port) + "/healthz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		fmt.Fprintln(stderr, "gateway healthcheck:", err)
		return 1
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "gateway healthcheck:", err)
		return 1
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "gateway healthcheck: GET %s: %s\n", url, resp.Status)
		return 1
	}
	return 0
}
