package gateway

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/catalogue-gateway/gateway/internal/config"
)

// HealthCheck is the client of `gateway healthcheck [flags]`: it asks the
// gateway cfg would start for /healthz, on loopback, and returns nil if it
// answers 200. It is the container's HEALTHCHECK, for an image that has no
// shell and no curl.
func HealthCheck(ctx context.Context, cfg config.Config) error {
	host, port, _ := net.SplitHostPort(cfg.Addr) // checked by config.Parse
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	url := "http://" + net.JoinHostPort(host, port) + "/healthz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}
