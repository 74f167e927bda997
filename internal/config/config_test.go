package config

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/internal/telemetry"
)

func TestParseConfig(t *testing.T) {
	defaults := Default()
	with := func(change func(*Config)) Config {
		c := defaults
		change(&c)
		return c
	}
	const (
		up  = "http://up.example"
		wb  = "https://boss.example/api"
		up2 = "https://other.example"
	)
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want Config
	}{
		{name: "defaults", want: defaults},
		{name: "empty env values are unset", env: map[string]string{"ADDR": "", "CATALOGUE_REFRESH": ""}, want: defaults},

		{name: "flag addr", args: []string{"-addr", "127.0.0.1:9000"}, want: with(func(c *Config) { c.Addr = "127.0.0.1:9000" })},
		{name: "flag addr with double dash and =", args: []string{"--addr=:9001"}, want: with(func(c *Config) { c.Addr = ":9001" })},
		{name: "flag base-url", args: []string{"-base-url", up}, want: with(func(c *Config) { c.BaseURL, c.WorldBossURL = up, up })},
		{name: "flag worldboss-url", args: []string{"-base-url", up, "-worldboss-url", wb}, want: with(func(c *Config) { c.BaseURL, c.WorldBossURL = up, wb })},
		{name: "flag refresh", args: []string{"-refresh", "30s"}, want: with(func(c *Config) { c.Refresh = 30 * time.Second })},
		{name: "flag refresh of exactly 1s", args: []string{"-refresh=1s"}, want: with(func(c *Config) { c.Refresh = time.Second })},
		{name: "flag cache-dir", args: []string{"-cache-dir", "/var/cache/gw"}, want: with(func(c *Config) { c.CacheDir = "/var/cache/gw" })},
		{
			name: "every flag",
			args: []string{"-addr", "[::1]:80", "-base-url", up, "-worldboss-url", wb, "-refresh", "1h", "-cache-dir", "d"},
			want: with(func(c *Config) {
				c.Addr, c.BaseURL, c.WorldBossURL, c.Refresh, c.CacheDir = "[::1]:80", up, wb, time.Hour, "d"
			}),
		},

		{name: "env ADDR", env: map[string]string{"ADDR": "0.0.0.0:7000"}, want: with(func(c *Config) { c.Addr = "0.0.0.0:7000" })},
		{name: "env CATALOGUE_BASE_URL", env: map[string]string{"CATALOGUE_BASE_URL": up}, want: with(func(c *Config) { c.BaseURL, c.WorldBossURL = up, up })},
		{
			name: "env CATALOGUE_WORLDBOSS_URL",
			env:  map[string]string{"CATALOGUE_BASE_URL": up, "CATALOGUE_WORLDBOSS_URL": wb},
			want: with(func(c *Config) { c.BaseURL, c.WorldBossURL = up, wb }),
		},
		{name: "env CATALOGUE_REFRESH", env: map[string]string{"CATALOGUE_REFRESH": "90s"}, want: with(func(c *Config) { c.Refresh = 90 * time.Second })},
		{name: "env CATALOGUE_CACHE_DIR", env: map[string]string{"CATALOGUE_CACHE_DIR": "/tmp/gw"}, want: with(func(c *Config) { c.CacheDir = "/tmp/gw" })},

		{name: "flag wins over ADDR", args: []string{"-addr", ":1"}, env: map[string]string{"ADDR": ":2"}, want: with(func(c *Config) { c.Addr = ":1" })},
		{
			name: "flag wins over CATALOGUE_BASE_URL",
			args: []string{"-base-url", up2}, env: map[string]string{"CATALOGUE_BASE_URL": up},
			want: with(func(c *Config) { c.BaseURL, c.WorldBossURL = up2, up2 }),
		},
		{
			name: "flag wins over CATALOGUE_WORLDBOSS_URL",
			args: []string{"-worldboss-url", up2}, env: map[string]string{"CATALOGUE_BASE_URL": up, "CATALOGUE_WORLDBOSS_URL": wb},
			want: with(func(c *Config) { c.BaseURL, c.WorldBossURL = up, up2 }),
		},
		{name: "flag wins over CATALOGUE_REFRESH", args: []string{"-refresh", "2m"}, env: map[string]string{"CATALOGUE_REFRESH": "3m"}, want: with(func(c *Config) { c.Refresh = 2 * time.Minute })},
		{name: "flag wins over CATALOGUE_CACHE_DIR", args: []string{"-cache-dir", "a"}, env: map[string]string{"CATALOGUE_CACHE_DIR": "b"}, want: with(func(c *Config) { c.CacheDir = "a" })},
		{name: "flag wins over a bad env value", args: []string{"-refresh", "10s"}, env: map[string]string{"CATALOGUE_REFRESH": "soon"}, want: with(func(c *Config) { c.Refresh = 10 * time.Second })},
		{name: "flags and env mixed", args: []string{"-addr", ":3"}, env: map[string]string{"CATALOGUE_CACHE_DIR": "c"}, want: with(func(c *Config) { c.Addr, c.CacheDir = ":3", "c" })},

		{name: "flag max-body-bytes", args: []string{"-max-body-bytes", "1024"}, want: with(func(c *Config) { c.Limits.MaxBodyBytes = 1024 })},
		{name: "flag max-url-bytes", args: []string{"-max-url-bytes", "2048"}, want: with(func(c *Config) { c.Limits.MaxURLBytes = 2048 })},
		{name: "flag max-tokens", args: []string{"-max-tokens", "99"}, want: with(func(c *Config) { c.Limits.MaxTokens = 99 })},
		{name: "flag max-depth", args: []string{"-max-depth", "4"}, want: with(func(c *Config) { c.Limits.MaxDepth = 4 })},
		{name: "flag max-fields", args: []string{"-max-fields", "40"}, want: with(func(c *Config) { c.Limits.MaxFields = 40 })},
		{name: "flag max-aliases", args: []string{"-max-aliases", "3"}, want: with(func(c *Config) { c.Limits.MaxAliases = 3 })},
		{name: "flag max-directives", args: []string{"-max-directives", "2"}, want: with(func(c *Config) { c.Limits.MaxDirectives = 2 })},
		{name: "flag max-complexity", args: []string{"-max-complexity", "500"}, want: with(func(c *Config) { c.Limits.MaxComplexity = 500 })},
		{name: "flag max-response-bytes", args: []string{"-max-response-bytes", "2MiB"}, want: with(func(c *Config) { c.MaxResponseBytes = 2 << 20 })},
		{name: "env GATEWAY_MAX_RESPONSE_BYTES", env: map[string]string{"GATEWAY_MAX_RESPONSE_BYTES": "4096"}, want: with(func(c *Config) { c.MaxResponseBytes = 4096 })},
		{name: "flag request-timeout", args: []string{"-request-timeout", "2s"}, want: with(func(c *Config) { c.RequestTimeout = 2 * time.Second })},
		{name: "flag introspection off", args: []string{"-introspection=false"}, want: with(func(c *Config) { c.Introspection = false })},
		{name: "flag cors-origins", args: []string{"-cors-origins", "https://a.example,https://b.example"}, want: with(func(c *Config) { c.CORSOrigins = "https://a.example,https://b.example" })},
		{name: "flag cors-origins empty", args: []string{"-cors-origins="}, want: with(func(c *Config) { c.CORSOrigins = "" })},
		{name: "flag access-log off", args: []string{"-access-log=false"}, want: with(func(c *Config) { c.AccessLog = false })},
		{name: "flag max-body-bytes KiB", args: []string{"-max-body-bytes", "64KiB"}, want: with(func(c *Config) { c.Limits.MaxBodyBytes = 64 << 10 })},
		{name: "env GATEWAY_MAX_URL_BYTES KiB", env: map[string]string{"GATEWAY_MAX_URL_BYTES": "4KiB"}, want: with(func(c *Config) { c.Limits.MaxURLBytes = 4 << 10 })},
		{name: "flag log-format json", args: []string{"-log-format", "json"}, want: with(func(c *Config) { c.LogFormat = "json" })},
		{name: "flag log-format text", args: []string{"-log-format", "text"}, want: with(func(c *Config) { c.LogFormat = "text" })},
		{name: "env GATEWAY_LOG_LEVEL", env: map[string]string{"GATEWAY_LOG_LEVEL": "warn"}, want: with(func(c *Config) { c.LogLevel = telemetry.LogLevel{Level: slog.LevelWarn} })},
		{name: "flag upstream-timeout", args: []string{"-upstream-timeout", "5s"}, want: with(func(c *Config) { c.UpstreamTimeout = 5 * time.Second })},
		{name: "env CATALOGUE_UPSTREAM_TIMEOUT", env: map[string]string{"CATALOGUE_UPSTREAM_TIMEOUT": "7s"}, want: with(func(c *Config) { c.UpstreamTimeout = 7 * time.Second })},
		{name: "flag pprof-addr", args: []string{"-pprof-addr", "127.0.0.1:6060"}, want: with(func(c *Config) { c.PprofAddr = "127.0.0.1:6060" })},
		{name: "flag trust-traceparent", args: []string{"-trust-traceparent"}, want: with(func(c *Config) { c.TrustTraceparent = true })},
		{name: "env GATEWAY_TRUST_TRACEPARENT", env: map[string]string{"GATEWAY_TRUST_TRACEPARENT": "true"}, want: with(func(c *Config) { c.TrustTraceparent = true })},
		{name: "env GATEWAY_MAX_DEPTH", env: map[string]string{"GATEWAY_MAX_DEPTH": "7"}, want: with(func(c *Config) { c.Limits.MaxDepth = 7 })},
		{name: "env GATEWAY_INTROSPECTION", env: map[string]string{"GATEWAY_INTROSPECTION": "false"}, want: with(func(c *Config) { c.Introspection = false })},
		{name: "env GATEWAY_REQUEST_TIMEOUT", env: map[string]string{"GATEWAY_REQUEST_TIMEOUT": "3s"}, want: with(func(c *Config) { c.RequestTimeout = 3 * time.Second })},
		{name: "flag cold-wait", args: []string{"-cold-wait", "30s"}, want: with(func(c *Config) { c.ColdWait = 30 * time.Second })},
		{name: "env CATALOGUE_COLD_WAIT", env: map[string]string{"CATALOGUE_COLD_WAIT": "2s"}, want: with(func(c *Config) { c.ColdWait = 2 * time.Second })},
		{name: "flag engine off", args: []string{"-engine=false"}, want: with(func(c *Config) { c.Engine = false })},
		{name: "env GATEWAY_ENGINE", env: map[string]string{"GATEWAY_ENGINE": "false"}, want: with(func(c *Config) { c.Engine = false })},
		// -compiled-plans is -engine's old name: the same setting.
		{name: "flag compiled-plans off", args: []string{"-compiled-plans=false"}, want: with(func(c *Config) { c.Engine = false })},
		{name: "env GATEWAY_COMPILED_PLANS", env: map[string]string{"GATEWAY_COMPILED_PLANS": "false"}, want: with(func(c *Config) { c.Engine = false })},
		{name: "flag compiled-plans over env GATEWAY_ENGINE", args: []string{"-compiled-plans=false"}, env: map[string]string{"GATEWAY_ENGINE": "true"}, want: with(func(c *Config) { c.Engine = false })},
		{name: "flag engine over env GATEWAY_COMPILED_PLANS", args: []string{"-engine=false"}, env: map[string]string{"GATEWAY_COMPILED_PLANS": "true"}, want: with(func(c *Config) { c.Engine = false })},
		{name: "env GATEWAY_ENGINE over GATEWAY_COMPILED_PLANS", env: map[string]string{"GATEWAY_ENGINE": "false", "GATEWAY_COMPILED_PLANS": "true"}, want: with(func(c *Config) { c.Engine = false })},
		{name: "env GATEWAY_SHUTDOWN_DELAY", env: map[string]string{"GATEWAY_SHUTDOWN_DELAY": "5s"}, want: with(func(c *Config) { c.ShutdownDelay = 5 * time.Second })},
		{name: "flag max-subscriptions", args: []string{"-max-subscriptions", "3"}, want: with(func(c *Config) { c.MaxSubscriptions = 3 })},
		{name: "env GATEWAY_MAX_SUBSCRIPTIONS off", env: map[string]string{"GATEWAY_MAX_SUBSCRIPTIONS": "0"}, want: with(func(c *Config) { c.MaxSubscriptions = 0 })},
		{name: "flag max-subscriptions-per-client", args: []string{"-max-subscriptions-per-client", "1"}, want: with(func(c *Config) { c.MaxSubscriptionsPerClient = 1 })},
		{name: "env GATEWAY_MAX_SUBSCRIPTIONS_PER_CLIENT", env: map[string]string{"GATEWAY_MAX_SUBSCRIPTIONS_PER_CLIENT": "50"}, want: with(func(c *Config) { c.MaxSubscriptionsPerClient = 50 })},
		{name: "flag trusted-proxies", args: []string{"-trusted-proxies", "10.0.0.0/8, fd00::/8"}, want: with(func(c *Config) {
			c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
		})},
		{name: "flag purge-url repeated, with headers", args: []string{"-base-url", up, "-purge-url", "http://cache-a:6081/", "-purge-url", "http://cache-b:6081/",
			"-purge-header", "X-Purge-Token: s3cret", "-purge-header", "X-Other:a, b"}, want: with(func(c *Config) {
			c.BaseURL, c.WorldBossURL = up, up
			c.PurgeURLs = []string{"http://cache-a:6081/", "http://cache-b:6081/"}
			c.PurgeHeaders = http.Header{"X-Purge-Token": {"s3cret"}, "X-Other": {"a, b"}}
		})},
		{name: "env GATEWAY_PURGE_URL comma-separated, GATEWAY_PURGE_HEADER a line each", env: map[string]string{"CATALOGUE_BASE_URL": up,
			"GATEWAY_PURGE_URL": "http://cache-a:6081/, http://cache-b:6081/", "GATEWAY_PURGE_HEADER": "X-Purge-Token: s3cret\nX-Other: a, b"}, want: with(func(c *Config) {
			c.BaseURL, c.WorldBossURL = up, up
			c.PurgeURLs = []string{"http://cache-a:6081/", "http://cache-b:6081/"}
			c.PurgeHeaders = http.Header{"X-Purge-Token": {"s3cret"}, "X-Other": {"a, b"}}
		})},
		// A manifest with no mode is enforced; a mode given wins, off too.
		{name: "flag trusted-documents", args: []string{"-trusted-documents", "ops.json"}, want: with(func(c *Config) {
			c.TrustedDocuments, c.TrustedDocumentsMode = "ops.json", graphqlhttp.TrustedEnforce
		})},
		{name: "env GATEWAY_TRUSTED_DOCUMENTS_MODE", args: []string{"-trusted-documents", "ops.json"}, env: map[string]string{"GATEWAY_TRUSTED_DOCUMENTS_MODE": "log"},
			want: with(func(c *Config) { c.TrustedDocuments, c.TrustedDocumentsMode = "ops.json", graphqlhttp.TrustedLog })},
		{name: "trusted documents off", env: map[string]string{"GATEWAY_TRUSTED_DOCUMENTS": "ops.json", "GATEWAY_TRUSTED_DOCUMENTS_MODE": "off"},
			want: with(func(c *Config) { c.TrustedDocuments = "ops.json" })},
		{name: "env GATEWAY_TRUSTED_PROXIES", env: map[string]string{"GATEWAY_TRUSTED_PROXIES": "192.168.1.1"}, want: with(func(c *Config) { c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("192.168.1.1/32")} })},
		{name: "flag subscription-max-age", args: []string{"-subscription-max-age", "1h"}, want: with(func(c *Config) { c.SubscriptionMaxAge = time.Hour })},
		{name: "env GATEWAY_SUBSCRIPTION_MAX_AGE of exactly 1s", env: map[string]string{"GATEWAY_SUBSCRIPTION_MAX_AGE": "1s"}, want: with(func(c *Config) { c.SubscriptionMaxAge = time.Second })},
		{name: "flag playground off", args: []string{"-playground=false"}, want: with(func(c *Config) { c.Playground = false })},
		{name: "env GATEWAY_EXPLORER off", env: map[string]string{"GATEWAY_EXPLORER": "false"}, want: with(func(c *Config) { c.Explorer = false })},
		{name: "flag response-cache-bytes off", args: []string{"-response-cache-bytes", "0"}, want: with(func(c *Config) { c.ResponseCacheBytes = 0 })},
		{name: "flag response-cache-bytes MiB", args: []string{"-response-cache-bytes", "8MiB"}, want: with(func(c *Config) { c.ResponseCacheBytes = 8 << 20 })},
		{name: "env GATEWAY_RESPONSE_CACHE_BYTES", env: map[string]string{"GATEWAY_RESPONSE_CACHE_BYTES": "1048576"}, want: with(func(c *Config) { c.ResponseCacheBytes = 1 << 20 })},
		{name: "env GATEWAY_MEMORY_BUDGET", env: map[string]string{"GATEWAY_MEMORY_BUDGET": "96MiB"}, want: with(func(c *Config) { c.MemoryBudget = 96 << 20 })},
		{name: "flag max-upstream-bytes GiB", args: []string{"-max-upstream-bytes", "1GiB"}, want: with(func(c *Config) { c.MaxUpstreamBytes = 1 << 30 })},
		{name: "env CATALOGUE_MAX_UPSTREAM_BYTES", env: map[string]string{"CATALOGUE_MAX_UPSTREAM_BYTES": "200MiB"}, want: with(func(c *Config) { c.MaxUpstreamBytes = 200 << 20 })},
		{name: "flag wins over GATEWAY_MAX_COMPLEXITY", args: []string{"-max-complexity", "10"}, env: map[string]string{"GATEWAY_MAX_COMPLEXITY": "20"}, want: with(func(c *Config) { c.Limits.MaxComplexity = 10 })},

		{name: "worldboss URL defaults to flag base URL", args: []string{"-base-url", up}, env: map[string]string{}, want: with(func(c *Config) { c.BaseURL, c.WorldBossURL = up, up })},
		{name: "worldboss URL defaults to env base URL", env: map[string]string{"CATALOGUE_BASE_URL": up2}, want: with(func(c *Config) { c.BaseURL, c.WorldBossURL = up2, up2 })},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			got, err := Parse(tt.args, envOf(tt.env), &stderr)
			if err != nil {
				t.Fatalf("Parse(%q) = %v, want no error", tt.args, err)
			}
			if diff := cmp.Diff(tt.want, got, equateConfigs); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.args, diff)
			}
			if stderr.Len() != 0 {
				t.Errorf("Parse wrote %q, want nothing", stderr.String())
			}
		})
	}
}

func TestParseConfigRefusesBadValues(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string // the error names the culprit
	}{
		{name: "bad duration", args: []string{"-refresh", "soon"}, wantErr: "refresh"},
		{name: "bad byte size", args: []string{"-response-cache-bytes", "lots"}, wantErr: "response-cache-bytes"},
		{name: "response bound too small", args: []string{"-max-response-bytes", "100"}, wantErr: "max-response-bytes"},
		{name: "negative byte size", args: []string{"-response-cache-bytes", "-1"}, wantErr: "response-cache-bytes"},
		{name: "unknown byte unit", env: map[string]string{"CATALOGUE_MAX_UPSTREAM_BYTES": "64MB"}, wantErr: "CATALOGUE_MAX_UPSTREAM_BYTES"},
		{name: "upstream bound too small", args: []string{"-max-upstream-bytes", "10"}, wantErr: "max-upstream-bytes"},
		{name: "duration without unit", args: []string{"-refresh", "30"}, wantErr: "refresh"},
		{name: "refresh below 1s", args: []string{"-refresh", "500ms"}, wantErr: "500ms"},
		{name: "refresh zero", args: []string{"-refresh", "0s"}, wantErr: "refresh"},
		{name: "negative shutdown delay", args: []string{"-shutdown-delay", "-1s"}, wantErr: "shutdown-delay"},
		{name: "shutdown delay over a minute", env: map[string]string{"GATEWAY_SHUTDOWN_DELAY": "5m"}, wantErr: "shutdown-delay"},
		{name: "negative max subscriptions", args: []string{"-max-subscriptions", "-1"}, wantErr: "max-subscriptions"},
		{name: "no subscription per client", args: []string{"-max-subscriptions-per-client", "0"}, wantErr: "max-subscriptions-per-client"},
		{name: "bad env subscriptions per client", env: map[string]string{"GATEWAY_MAX_SUBSCRIPTIONS_PER_CLIENT": "ten"}, wantErr: "GATEWAY_MAX_SUBSCRIPTIONS_PER_CLIENT"},
		{name: "log with no manifest", args: []string{"-trusted-documents-mode", "log"}, wantErr: "needs -trusted-documents"},
		{name: "unknown trusted documents mode", args: []string{"-trusted-documents", "ops.json", "-trusted-documents-mode", "on"}, wantErr: "want off, log or enforce"},
		{name: "bad trusted proxy prefix", args: []string{"-trusted-proxies", "10.0.0.0/8,10.0.0.0/33"}, wantErr: "10.0.0.0/33"},
		{name: "trusted proxy by host name", env: map[string]string{"GATEWAY_TRUSTED_PROXIES": "proxy.internal"}, wantErr: "trusted-proxies"},
		{name: "purge URL without a base URL", args: []string{"-purge-url", "http://cache:6081/"}, wantErr: "-purge-url needs -base-url"},
		{name: "purge URL not http", args: []string{"-base-url", "http://up.example", "-purge-url", "cache:6081"}, wantErr: "invalid -purge-url"},
		{name: "purge header without a purge URL", args: []string{"-base-url", "http://up.example", "-purge-header", "X-Token: a"}, wantErr: "needs -purge-url"},
		{name: "purge header with no colon", args: []string{"-base-url", "http://up.example", "-purge-url", "http://cache:6081/", "-purge-header", "X-Token a"}, wantErr: "want 'Name: value'"},
		{name: "purge header with a bad name", args: []string{"-base-url", "http://up.example", "-purge-url", "http://cache:6081/", "-purge-header", "X Token: a"}, wantErr: "want 'Name: value'"},
		{name: "zero subscription max age", args: []string{"-subscription-max-age", "0s"}, wantErr: "subscription-max-age"},
		{name: "subscription max age below 1s", env: map[string]string{"GATEWAY_SUBSCRIPTION_MAX_AGE": "200ms"}, wantErr: "200ms"},
		{name: "bad env playground", env: map[string]string{"GATEWAY_PLAYGROUND": "maybe"}, wantErr: "GATEWAY_PLAYGROUND"},
		{name: "bad env trust-traceparent", env: map[string]string{"GATEWAY_TRUST_TRACEPARENT": "yes please"}, wantErr: "GATEWAY_TRUST_TRACEPARENT"},
		{name: "refresh negative", args: []string{"-refresh", "-1m"}, wantErr: "refresh"},
		{name: "non-http base URL", args: []string{"-base-url", "ftp://up.example"}, wantErr: "ftp://up.example"},
		{name: "base URL without scheme", args: []string{"-base-url", "up.example"}, wantErr: "up.example"},
		{name: "base URL without host", args: []string{"-base-url", "http://"}, wantErr: "host"},
		{name: "base URL with only a path", args: []string{"-base-url", "http:///items"}, wantErr: "host"},
		{name: "base URL with a query", args: []string{"-base-url", "http://up.example/?k=v"}, wantErr: "query"},
		{name: "non-http worldboss URL", args: []string{"-base-url", "http://up.example", "-worldboss-url", "file:///x"}, wantErr: "file:///x"},
		{name: "worldboss URL without base URL", args: []string{"-worldboss-url", "http://boss.example"}, wantErr: "-base-url"},
		{name: "addr without port", args: []string{"-addr", "localhost"}, wantErr: "localhost"},
		{name: "addr empty", args: []string{"-addr", ""}, wantErr: "addr"},
		{name: "port out of range", args: []string{"-addr", ":65536"}, wantErr: "65536"},
		{name: "port not a number", args: []string{"-addr", "127.0.0.1:port"}, wantErr: "port"},
		{name: "port negative", args: []string{"-addr", ":-1"}, wantErr: "-1"},
		{name: "stray argument", args: []string{"serve"}, wantErr: "serve"},
		{name: "stray argument after flags", args: []string{"-addr", ":1", "extra"}, wantErr: "extra"},
		{name: "unknown flag", args: []string{"-port", "80"}, wantErr: "-port"},
		{name: "flag without value", args: []string{"-addr"}, wantErr: "addr"},
		{name: "bad env duration", env: map[string]string{"CATALOGUE_REFRESH": "soon"}, wantErr: "CATALOGUE_REFRESH"},
		{name: "env refresh below 1s", env: map[string]string{"CATALOGUE_REFRESH": "10ms"}, wantErr: "10ms"},
		{name: "bad env addr", env: map[string]string{"ADDR": "nowhere"}, wantErr: "nowhere"},
		{name: "bad env addr names its variable", env: map[string]string{"ADDR": "nonsense"}, wantErr: `invalid value "nonsense" for ADDR`},
		{name: "a bare port suggests every interface", args: []string{"-addr", "35001"}, wantErr: "for every interface, :35001"},
		{name: "version as a command", args: []string{"version"}, wantErr: "gateway -version"},
		{name: "bad env base URL", env: map[string]string{"CATALOGUE_BASE_URL": "gopher://up.example"}, wantErr: "gopher://up.example"},
		{name: "env worldboss URL without base URL", env: map[string]string{"CATALOGUE_WORLDBOSS_URL": "http://boss.example"}, wantErr: "base-url"},
		{name: "zero depth", args: []string{"-max-depth", "0"}, wantErr: "max-depth"},
		{name: "negative body limit", args: []string{"-max-body-bytes", "-5"}, wantErr: "max-body-bytes"},
		{name: "not a number", args: []string{"-max-aliases", "many"}, wantErr: "max-aliases"},
		{name: "bad env limit", env: map[string]string{"GATEWAY_MAX_FIELDS": "lots"}, wantErr: "GATEWAY_MAX_FIELDS"},
		{name: "zero request timeout", args: []string{"-request-timeout", "0s"}, wantErr: "request-timeout"},
		{name: "upstream timeout too short", args: []string{"-upstream-timeout", "1ms"}, wantErr: "upstream-timeout"},
		{name: "bad introspection", args: []string{"-introspection=maybe"}, wantErr: "introspection"},
		{name: "bad pprof addr", args: []string{"-pprof-addr", "6060"}, wantErr: "6060"},
		{name: "duration says what it wants", args: []string{"-refresh", "5"}, wantErr: "-refresh: want a duration such as 5m"},
		{name: "env duration names its variable", env: map[string]string{"CATALOGUE_REFRESH": "5"}, wantErr: "CATALOGUE_REFRESH: want a duration such as 5m"},
		{name: "number says what it wants", args: []string{"-max-depth", "deep"}, wantErr: "-max-depth: want a whole number"},
		{name: "boolean says what it wants", env: map[string]string{"GATEWAY_ACCESS_LOG": "sometimes"}, wantErr: "GATEWAY_ACCESS_LOG: want true or false"},
		{name: "bad log format", args: []string{"-log-format", "xml"}, wantErr: "want auto, json or text"},
		{name: "bad log level", env: map[string]string{"GATEWAY_LOG_LEVEL": "loud"}, wantErr: "GATEWAY_LOG_LEVEL: want debug, info, warn or error"},
		{name: "picture bound too small", args: []string{"-images-max-bytes", "100"}, wantErr: "-images-max-bytes"},
		{name: "picture disk under one picture", args: []string{"-images-disk-bytes", "1KiB"}, wantErr: "-images-disk-bytes"},
		{name: "picture timeout too short", args: []string{"-images-timeout", "1ms"}, wantErr: "-images-timeout"},
		{name: "picture rate zero", env: map[string]string{"GATEWAY_IMAGES_CLIENT_RATE": "0"}, wantErr: "-images-client-rate"},
		{name: "picture burst zero", args: []string{"-images-client-burst", "0"}, wantErr: "-images-client-burst"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			got, err := Parse(tt.args, envOf(tt.env), &stderr)
			if err == nil {
				t.Fatalf("Parse(%q, %v) = %+v, want an error", tt.args, tt.env, got)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.wantErr) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line naming %q", msg, tt.wantErr)
			}
		})
	}
}

// TestEveryByteFlagTakesSuffixes: every flag -h says counts bytes reads
// 16MiB as 16777216, whichever field it sets.
func TestEveryByteFlagTakesSuffixes(t *testing.T) {
	var usage bytes.Buffer
	Parse([]string{"-h"}, envOf(nil), &usage)
	var names []string
	for line := range strings.Lines(usage.String()) {
		if rest, ok := strings.CutPrefix(line, "  -"); ok {
			if name, kind, _ := strings.Cut(strings.TrimSpace(rest), " "); kind == "bytes" {
				names = append(names, name)
			}
		}
	}
	want := []string{"images-disk-bytes", "images-max-bytes", "max-body-bytes", "max-response-bytes", "max-upstream-bytes", "max-url-bytes", "memory-budget", "response-cache-bytes"} // -h lists them sorted
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("flags taking bytes (-want +got):\n%s", diff)
	}
	for _, name := range names {
		suffixed, err := Parse([]string{"-" + name, "16MiB"}, envOf(nil), io.Discard)
		if err != nil {
			t.Errorf("-%s 16MiB: %v", name, err)
			continue
		}
		plain, err := Parse([]string{"-" + name, "16777216"}, envOf(nil), io.Discard)
		if err != nil || !cmp.Equal(plain, suffixed, equateConfigs) || cmp.Equal(plain, Default(), equateConfigs) {
			t.Errorf("-%s: 16MiB and 16777216 differ, or change nothing (%v)", name, err)
		}
		if _, err := Parse([]string{"-" + name, "16MB"}, envOf(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "KiB, MiB, GiB") {
			t.Errorf("-%s 16MB: error %v, want one naming the suffixes", name, err)
		}
	}
}

func TestTracingWanted(t *testing.T) {
	const endpoint = "http://127.0.0.1:4318"
	for _, tt := range []struct {
		name    string
		env     map[string]string
		want    bool
		wantErr string
	}{
		{name: "unset", want: false},
		{name: "endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}, want: true},
		{name: "traces endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": endpoint + "/v1/traces"}, want: true},
		{name: "otlp exporter", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_TRACES_EXPORTER": "otlp"}, want: true},
		{name: "http/protobuf", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, want: true},
		{name: "traces protocol wins", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
			"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, want: true},
		{name: "SDK disabled", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_SDK_DISABLED": "true"}, want: false},
		{name: "SDK disabled, any case", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_SDK_DISABLED": "TRUE"}, want: false},
		{name: "SDK not disabled", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_SDK_DISABLED": "false"}, want: true},
		{name: "exporter none", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_TRACES_EXPORTER": "none"}, want: false},
		{name: "other variables alone", env: map[string]string{"OTEL_SERVICE_NAME": "x", "OTEL_TRACES_EXPORTER": "console",
			"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, want: false},
		{name: "endpoint not a URL", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "127.0.0.1:4318"},
			wantErr: "invalid OTEL_EXPORTER_OTLP_ENDPOINT"},
		{name: "traces endpoint not http", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "grpc://127.0.0.1:4317"},
			wantErr: "invalid OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
		{name: "console exporter", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_TRACES_EXPORTER": "console"},
			wantErr: "invalid OTEL_TRACES_EXPORTER"},
		{name: "grpc", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			wantErr: "invalid OTEL_EXPORTER_OTLP_PROTOCOL"},
		{name: "traces over json", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"},
			wantErr: "invalid OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(nil, envOf(tt.env), io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse: error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if cfg.Tracing != tt.want {
				t.Errorf("tracing = %v, want %v", cfg.Tracing, tt.want)
			}
		})
	}
}

// envOf is a getenv reading m; nil reads nothing.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// equateConfigs compares configurations field by field: a prefix, and the
// endpoint's limits (which hold a switch of graphqlhttp's own), by ==.
var equateConfigs = cmpopts.EquateComparable(netip.Prefix{}, admission.Limits{})
