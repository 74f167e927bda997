// Package config is the gateway's configuration: its flags, each with an
// environment variable, their defaults (the packages' own, from
// graphqlhttp.DefaultOptions and the catalogue's and loader's constants)
// and the checks of their values.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/internal/clientaddr"
	"github.com/catalogue-gateway/gateway/internal/memory"
	"github.com/catalogue-gateway/gateway/internal/telemetry"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/pictures"
)

// Config is the gateway's configuration, from flags and the environment.
type Config struct {
	// Version asks for the build's version, printed instead of serving.
	Version      bool
	Addr         string
	BaseURL      string
	WorldBossURL string
	Refresh      time.Duration
	CacheDir     string
	// UpstreamTimeout bounds one upstream request, body included.
	UpstreamTimeout time.Duration
	// ColdWait bounds how long a request arriving before a collection's
	// first good body waits for the upstream read under way.
	ColdWait time.Duration
	// MaxUpstreamBytes bounds one upstream body.
	MaxUpstreamBytes int64
	// MemoryBudget is the memory budget of every store that outlives a
	// request (memory.Budget); 0 derives it from the heap's memory
	// limit (memory.DefaultBudget).
	MemoryBudget int64
	// ResponseCacheBytes caps the GraphQL response cache below its share
	// of the budget; 0 turns it off.
	ResponseCacheBytes int64
	// MaxResponseBytes bounds one GraphQL answer (limits.MaxResponseBytes).
	MaxResponseBytes int64

	// The public endpoint's limits and switches (see package graphqlhttp).
	Limits         admission.Limits
	RequestTimeout time.Duration
	Introspection  bool
	CORSOrigins    string
	AccessLog      bool
	LogFormat      telemetry.LogFormat
	LogLevel       telemetry.LogLevel
	PprofAddr      string
	// Engine runs queries on the engine (package engine), from plans
	// compiled once per document, where it can, instead of gqlgen's
	// executor.
	Engine bool
	// ShutdownDelay is how long the server keeps serving, not ready,
	// after it is told to stop: the time a load balancer takes to notice.
	ShutdownDelay time.Duration
	// MaxSubscriptions caps the subscription streams open at once; 0
	// turns subscriptions off.
	MaxSubscriptions int
	// MaxSubscriptionsPerClient caps those one client holds open.
	MaxSubscriptionsPerClient int
	// SubscriptionMaxAge ends a stream open this long, with complete.
	SubscriptionMaxAge time.Duration
	// TrustedProxies are the CIDR prefixes of the proxies whose
	// X-Forwarded-For names the client, parsed once, here, by
	// clientaddr.ParseTrustedProxies; none when nil.
	TrustedProxies []netip.Prefix
	// Playground serves GraphiQL at /; Explorer, the catalogue explorer
	// at /explorer.
	Playground, Explorer bool
	// Tracing exports OpenTelemetry traces; on when the standard OTEL_*
	// variables ask for it (see telemetry.TracingWanted), and not a flag.
	Tracing bool
	// TrustTraceparent makes a caller's traceparent the parent of the
	// request's span; otherwise it is only linked (see telemetry.TraceRequests).
	TrustTraceparent bool
	// TrustedDocuments is the file of the operations the apps ship (see
	// documents.ParseManifest), read by the wiring at start and on
	// SIGHUP; empty for none.
	TrustedDocuments string
	// TrustedDocumentsMode is what is done with them: off, log or
	// enforce. Given no mode, a file means enforce, and no file off.
	TrustedDocumentsMode graphqlhttp.TrustedMode
	// TrustedDocumentsAllowEmpty accepts a manifest that lists no
	// documents; without it one is refused, at start and on reload, since
	// in enforce mode it would refuse every operation.
	TrustedDocumentsAllowEmpty bool

	// Images fetches the catalogue's pictures and serves them at
	// /images/ (package pictures); off, or on the embedded catalogue,
	// every picture is its placeholder.
	Images bool
	// ImagesAllowPrivate lets picture fetches reach non-public addresses.
	ImagesAllowPrivate bool
	// ImagesMaxBytes bounds one picture, ImagesDiskBytes the pictures
	// kept under CacheDir.
	ImagesMaxBytes, ImagesDiskBytes int64
	// ImagesTimeout bounds one picture's fetch.
	ImagesTimeout time.Duration
	// ImagesClientRate is the fetches a minute one client may cause by
	// missing the cache, ImagesClientBurst how many at once.
	ImagesClientRate, ImagesClientBurst int
	// PurgeURLs are the caches in front of the gateway told, by PURGE
	// requests naming Surrogate-Keys, what a refresh changed (package
	// purge); none when empty.
	PurgeURLs []string
	// PurgeHeaders are added to every purge, such as a token the cache
	// asks for; read from "Name: value" by check.
	PurgeHeaders http.Header
}

// Default is the configuration with no flag and no environment. Each
// default of a package's is that package's own, stated once there
// (graphqlhttp.DefaultOptions, the catalogue's and the loader's
// constants); only the gateway's own choices are stated here.
func Default() Config {
	endpoint := graphqlhttp.DefaultOptions()
	limits := endpoint.Limits
	// The response bound is a field of its own, MaxResponseBytes, which
	// takes the byte suffixes; the wiring puts it back in the limits.
	limits.MaxResponseBytes = 0
	return Config{
		Addr:               ":8080",
		Refresh:            5 * time.Minute,
		UpstreamTimeout:    catalogue.DefaultTimeout,
		ColdWait:           loader.DefaultColdWait,
		MaxUpstreamBytes:   catalogue.DefaultMaxBodyBytes,
		ResponseCacheBytes: 64 << 20,
		MaxResponseBytes:   int64(endpoint.Limits.MaxResponseBytes),
		Limits:             limits,

		RequestTimeout:   endpoint.RequestTimeout,
		Introspection:    endpoint.Introspection,
		CORSOrigins:      "*",
		AccessLog:        true,
		LogFormat:        "auto",
		Engine:           true,
		MaxSubscriptions: endpoint.MaxStreams,
		Playground:       true,
		Explorer:         true,

		MaxSubscriptionsPerClient: endpoint.MaxStreamsPerClient,
		SubscriptionMaxAge:        endpoint.StreamMaxAge,
		TrustedDocumentsMode:      graphqlhttp.TrustedOff,

		Images:            true,
		ImagesMaxBytes:    pictures.DefaultMaxBytes,
		ImagesDiskBytes:   pictures.DefaultDiskBytes,
		ImagesTimeout:     pictures.DefaultTimeout,
		ImagesClientRate:  pictures.DefaultClientRate,
		ImagesClientBurst: pictures.DefaultClientBurst,
	}
}

// flagSpec is one flag: its name, its environment variable, its help (a
// `word` in it names the value in -h) and the value it sets. Every flag is
// declared once, in Config.flags: -h, the environment and the docs' flags
// table (TestFlagsDocumented holds it to -h) all read it from there.
type flagSpec struct {
	name, env, usage string
	value            flag.Value
}

// flags are the flags that set cfg's fields; trustedProxies and
// trustedMode receive the two that check reads into cfg.TrustedProxies
// and cfg.TrustedDocumentsMode.
func (cfg *Config) flags(trustedProxies, trustedMode *string, purgeHeaders *[]string) []flagSpec {
	l := &cfg.Limits
	return []flagSpec{
		{"addr", "ADDR", "listen `address`", (*addrValue)(&cfg.Addr)},
		{"base-url", "CATALOGUE_BASE_URL", "upstream base `URL`; empty serves the embedded snapshot, with no network", (*stringValue)(&cfg.BaseURL)},
		{"worldboss-url", "CATALOGUE_WORLDBOSS_URL", "upstream `URL` serving /worldboss (default the base URL)", (*stringValue)(&cfg.WorldBossURL)},
		{"refresh", "CATALOGUE_REFRESH", "how often the upstream is read again", (*durationValue)(&cfg.Refresh)},
		{"cache-dir", "CATALOGUE_CACHE_DIR", "`directory` keeping the last good snapshot, so a restart while the upstream is down still serves", (*stringValue)(&cfg.CacheDir)},
		{"upstream-timeout", "CATALOGUE_UPSTREAM_TIMEOUT", "bound on one upstream request, body included (a hung upstream costs this per try)", (*durationValue)(&cfg.UpstreamTimeout)},
		{"cold-wait", "CATALOGUE_COLD_WAIT", "how long a request arriving before a collection's first good body waits for the upstream read under way (then 503)", (*durationValue)(&cfg.ColdWait)},
		{"max-upstream-bytes", "CATALOGUE_MAX_UPSTREAM_BYTES", "largest upstream body accepted, in `bytes` (suffixes KiB, MiB, GiB); a larger one is refused and the last good one kept", bytesOf(&cfg.MaxUpstreamBytes)},
		{"memory-budget", "GATEWAY_MEMORY_BUDGET", "memory for everything kept beyond a request (parsed documents and plans, renderings, response cache, persisted queries, WebSocket buffers, live queries, pictures), in `bytes` (suffixes KiB, MiB, GiB), each store a stated share; 0 means " + fmt.Sprintf("1/%d of GOMEMLIMIT (or of the limit derived from the cgroup), or %s with no limit", memory.LimitDivisor, formatBytes(memory.FixedBudget)), bytesOf(&cfg.MemoryBudget)},
		{"response-cache-bytes", "GATEWAY_RESPONSE_CACHE_BYTES", "cap on the memory for whole GraphQL answers of the current snapshot, in `bytes` (suffixes KiB, MiB, GiB), below the cache's share (" + fmt.Sprintf("%d%%", memory.ResponseCachePercent) + ") of -memory-budget; 0 turns the cache off", bytesOf(&cfg.ResponseCacheBytes)},
		{"max-body-bytes", "GATEWAY_MAX_BODY_BYTES", "largest /graphql POST body, in `bytes` (suffixes KiB, MiB, GiB; 413 beyond)", bytesOf(&l.MaxBodyBytes)},
		{"max-url-bytes", "GATEWAY_MAX_URL_BYTES", "longest /graphql GET URL, in `bytes` (suffixes KiB, MiB, GiB; 414 beyond)", bytesOf(&l.MaxURLBytes)},
		{"max-tokens", "GATEWAY_MAX_TOKENS", "most `tokens` the GraphQL parser reads", (*intValue)(&l.MaxTokens)},
		{"max-depth", "GATEWAY_MAX_DEPTH", "deepest selection nesting, fragments expanded (introspection apart)", (*intValue)(&l.MaxDepth)},
		{"max-fields", "GATEWAY_MAX_FIELDS", "most fields in an operation, fragments expanded", (*intValue)(&l.MaxFields)},
		{"max-aliases", "GATEWAY_MAX_ALIASES", "most aliased fields in an operation", (*intValue)(&l.MaxAliases)},
		{"max-directives", "GATEWAY_MAX_DIRECTIVES", "most directives in an operation", (*intValue)(&l.MaxDirectives)},
		{"max-complexity", "GATEWAY_MAX_COMPLEXITY", "highest operation cost: the most values its answer could hold, each list counted at its longest (a page, or the longest such list in the snapshot)", (*intValue)(&l.MaxComplexity)},
		{"max-response-bytes", "GATEWAY_MAX_RESPONSE_BYTES", "largest GraphQL answer, in `bytes` (suffixes KiB, MiB, GiB); a longer one is stopped while it is built and answered RESPONSE_TOO_LARGE", bytesOf(&cfg.MaxResponseBytes)},
		{"request-timeout", "GATEWAY_REQUEST_TIMEOUT", "execution budget of one GraphQL request", (*durationValue)(&cfg.RequestTimeout)},
		{"introspection", "GATEWAY_INTROSPECTION", "allow introspection queries (the playground needs them)", (*boolValue)(&cfg.Introspection)},
		{"cors-origins", "GATEWAY_CORS_ORIGINS", "comma-separated `origins` browsers may call from (* for any; empty for none)", (*stringValue)(&cfg.CORSOrigins)},
		{"max-subscriptions", "GATEWAY_MAX_SUBSCRIPTIONS", "most subscription streams open at once (503 beyond); 0 turns subscriptions off", (*intValue)(&cfg.MaxSubscriptions)},
		{"max-subscriptions-per-client", "GATEWAY_MAX_SUBSCRIPTIONS_PER_CLIENT", "most subscription streams one client (an IPv4 address, an IPv6 /64) holds open at once (429 beyond); at least 1", (*intValue)(&cfg.MaxSubscriptionsPerClient)},
		{"subscription-max-age", "GATEWAY_SUBSCRIPTION_MAX_AGE", "longest a subscription stream stays open before it is ended with complete, for its client to subscribe again; at least 1s", (*durationValue)(&cfg.SubscriptionMaxAge)},
		{"trusted-proxies", "GATEWAY_TRUSTED_PROXIES", "comma-separated CIDR `prefixes` of the proxies in front of the gateway, whose X-Forwarded-For names the client; empty trusts none", (*stringValue)(trustedProxies)},
		{"playground", "GATEWAY_PLAYGROUND", "serve the GraphiQL playground at /", (*boolValue)(&cfg.Playground)},
		{"explorer", "GATEWAY_EXPLORER", "serve the catalogue explorer at /explorer", (*boolValue)(&cfg.Explorer)},
		{"log-format", "GATEWAY_LOG_FORMAT", "how log lines are written: json, text (key=value), or auto: text when stderr is a terminal, else json", &cfg.LogFormat},
		{"log-level", "GATEWAY_LOG_LEVEL", "least severe level logged: debug, info, warn or error", &cfg.LogLevel},
		{"access-log", "GATEWAY_ACCESS_LOG", "log every request", (*boolValue)(&cfg.AccessLog)},
		{"engine", "GATEWAY_ENGINE", "run queries on the engine, from plans compiled once per document, where possible; false runs every query through gqlgen's executor", (*boolValue)(&cfg.Engine)},
		{"compiled-plans", "GATEWAY_COMPILED_PLANS", "the old name of -engine, kept for the scripts that use it", (*boolValue)(&cfg.Engine)},
		{"shutdown-delay", "GATEWAY_SHUTDOWN_DELAY", "on SIGTERM, how long to keep serving with /readyz at 503 before closing the listener, so that load balancers stop sending requests first", (*durationValue)(&cfg.ShutdownDelay)},
		{"pprof-addr", "GATEWAY_PPROF_ADDR", "`address` of a separate listener serving net/http/pprof (off when empty)", (*optionalAddrValue)(&cfg.PprofAddr)},
		{"trust-traceparent", "GATEWAY_TRUST_TRACEPARENT", "make a caller's traceparent the parent of the request's span, for callers that are your own services; otherwise each request starts a new trace linked to it", (*boolValue)(&cfg.TrustTraceparent)},
		{"trusted-documents", "GATEWAY_TRUSTED_DOCUMENTS", "`file` of the operations your apps ship: Apollo's persisted query manifest or GraphQL Code Generator's persisted documents; read again on SIGHUP", (*stringValue)(&cfg.TrustedDocuments)},
		{"trusted-documents-mode", "GATEWAY_TRUSTED_DOCUMENTS_MODE", "`mode` of -trusted-documents: off, log (run anything, log what is not listed) or enforce (run only what is listed); default enforce with a file, off without", (*stringValue)(trustedMode)},
		{"trusted-documents-allow-empty", "GATEWAY_TRUSTED_DOCUMENTS_ALLOW_EMPTY", "accept a -trusted-documents file that lists no documents (in enforce mode, one that refuses every operation); without it such a file is refused at start and on reload", (*boolValue)(&cfg.TrustedDocumentsAllowEmpty)},
		{"images", "GATEWAY_IMAGES", "fetch the catalogue's pictures and serve them from /images/; false (or the embedded catalogue) serves each as its generated placeholder, fetching nothing", (*boolValue)(&cfg.Images)},
		{"images-allow-private", "GATEWAY_IMAGES_ALLOW_PRIVATE", "let picture fetches reach private, loopback, link-local and other non-public addresses, on any port (a stand-in image server on this machine); off, those and ports other than 80 and 443 are refused when dialled", (*boolValue)(&cfg.ImagesAllowPrivate)},
		{"images-max-bytes", "GATEWAY_IMAGES_MAX_BYTES", "largest picture fetched, in `bytes` (suffixes KiB, MiB, GiB); a larger one is refused and its placeholder served", bytesOf(&cfg.ImagesMaxBytes)},
		{"images-timeout", "GATEWAY_IMAGES_TIMEOUT", "bound on one picture's fetch, redirects and body included", (*durationValue)(&cfg.ImagesTimeout)},
		{"images-client-rate", "GATEWAY_IMAGES_CLIENT_RATE", "picture fetches a minute one client (an IPv4 address, an IPv6 /64) may cause by missing the cache (429 and the placeholder beyond); at least 1", (*intValue)(&cfg.ImagesClientRate)},
		{"images-client-burst", "GATEWAY_IMAGES_CLIENT_BURST", "picture fetches one client may cause at once, before -images-client-rate paces it; at least 1", (*intValue)(&cfg.ImagesClientBurst)},
		{"purge-url", "GATEWAY_PURGE_URL", "`URL` of a cache in front of the gateway, sent a PURGE naming the Surrogate-Keys of the records and collections each refresh changed; repeatable (comma-separated in the environment); none when empty", &listValue{p: &cfg.PurgeURLs}},
		{"purge-header", "GATEWAY_PURGE_HEADER", "`header` added to every purge, as 'Name: value' (a token the cache asks for); repeatable (one a line in the environment, since a value may hold a comma)", &listValue{p: purgeHeaders, sep: "\n"}},
		{"images-disk-bytes", "GATEWAY_IMAGES_DISK_BYTES", "most `bytes` of pictures kept under -cache-dir (suffixes KiB, MiB, GiB), the least recently used let go first", bytesOf(&cfg.ImagesDiskBytes)},
	}
}

// Parse reads flags from args, falling back for each flag not given to
// its environment variable, and checks every value. -h prints the usage and
// returns flag.ErrHelp.
func Parse(args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	cfg := Default()
	var trustedProxies, trustedMode string
	var purgeHeaders []string
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	envOf := map[string]string{}
	for _, f := range cfg.flags(&trustedProxies, &trustedMode, &purgeHeaders) {
		fs.Var(f.value, f.name, f.usage+" (env "+f.env+")")
		envOf[f.name] = f.env
	}
	// -version is parsed with the others, so that it may stand beside
	// them, but listed in the usage's head: it has no environment
	// variable, and serves nothing.
	fs.BoolVar(&cfg.Version, "version", false, "")

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, usageHead)
			printDefaults(stderr, fs)
			return cfg, err
		}
		return cfg, unknownFlagHint(err)
	}
	if cfg.Version {
		return cfg, nil
	}
	if fs.NArg() > 0 {
		if fs.Arg(0) == "version" {
			return cfg, errors.New(`unexpected argument "version": the version is printed by gateway -version`)
		}
		return cfg, fmt.Errorf("unexpected argument %q: the only command is healthcheck, and flags begin with - (gateway -h lists them)", fs.Arg(0))
	}
	// An alias is its flag under an old name: either name given is the
	// flag given, and the new name's variable wins over the old one's.
	aliasOf := map[string]string{"compiled-plans": "engine"}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		given[f.Name] = true
		if to, ok := aliasOf[f.Name]; ok {
			given[to] = true
		}
	})
	for name, env := range envOf {
		if to, ok := aliasOf[name]; ok && (given[to] || getenv(envOf[to]) != "") {
			continue
		}
		if v := getenv(env); v != "" && !given[name] {
			if err := fs.Set(name, v); err != nil {
				return cfg, fmt.Errorf("invalid value %q for %s: %v", v, env, err)
			}
		}
	}
	tracing, err := telemetry.TracingWanted(getenv)
	if err != nil {
		return cfg, err
	}
	cfg.Tracing = tracing
	if err := cfg.checkPurges(purgeHeaders); err != nil {
		return cfg, err
	}
	return cfg, cfg.check(trustedProxies, trustedMode)
}

// usageHead is the start of -h: the commands, then the flags.
const usageHead = `Usage:
  gateway [flags]              serve the catalogue
  gateway healthcheck [flags]  ask the gateway these flags would start for /healthz
                               (exit 0 if it answers 200, else 1; the container's HEALTHCHECK)
  gateway -version             print the build's version and exit

Serves the game catalogue as GraphQL and as the upstream's REST paths.
Every flag has an environment variable; the flag wins.

Flags:
`

// addrFlags are the flags people reach for, from other servers, when they
// mean -addr.
var addrFlags = map[string]bool{"port": true, "p": true, "listen": true, "host": true, "bind": true, "http": true}

// unknownFlagHint adds to the flag package's "flag provided but not
// defined: -port" where to look: -addr for the listen address, -h for the
// rest.
func unknownFlagHint(err error) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return err
	}
	if addrFlags[name] {
		return fmt.Errorf("%w; the listen address is -addr (e.g. -addr :9090); -h lists every flag", err)
	}
	return fmt.Errorf("%w; -h lists every flag", err)
}

// printDefaults is flag.PrintDefaults, naming the kind of value of the
// flags whose types are ours, which the flag package calls "value".
func printDefaults(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "version" { // in the usage's head
			return
		}
		name, usage := flag.UnquoteUsage(f)
		if name == "value" {
			switch f.Value.(type) {
			case *durationValue:
				name = "duration"
			case *intValue:
				name = "int"
			case *telemetry.LogFormat:
				name = "format"
			case *telemetry.LogLevel:
				name = "level"
			}
		}
		line := "  -" + f.Name
		if name != "" {
			line += " " + name
		}
		line += "\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t")
		if def := f.DefValue; def != "" && def != "0" && def != "false" && def != "0s" {
			line += fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprintln(w, line)
	})
}

// Flag values that say what they want when they refuse a value: the flag
// package's own say only "parse error", which leaves `-refresh 5` a riddle.
type (
	durationValue time.Duration
	intValue      int
	boolValue     bool
)

func (d *durationValue) String() string { return time.Duration(*d).String() }

func (d *durationValue) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("want a duration such as 5m, 30s or 1h30m")
	}
	*d = durationValue(v)
	return nil
}

func (n *intValue) String() string { return strconv.Itoa(int(*n)) }

func (n *intValue) Set(s string) error {
	v, err := strconv.ParseInt(s, 10, strconv.IntSize)
	if err != nil {
		return errors.New("want a whole number")
	}
	*n = intValue(v)
	return nil
}

// listValue is a repeatable flag: each time it is given adds to the list,
// as does each part of a value separated by sep (a comma when empty), so
// that one environment variable can hold several.
type listValue struct {
	p   *[]string
	sep string
}

func (v *listValue) String() string {
	if v == nil || v.p == nil {
		return ""
	}
	return strings.Join(*v.p, ",")
}

func (v *listValue) Set(s string) error {
	sep := v.sep
	if sep == "" {
		sep = ","
	}
	for part := range strings.SplitSeq(s, sep) {
		if part = strings.TrimSpace(part); part != "" {
			*v.p = append(*v.p, part)
		}
	}
	return nil
}

// stringValue is a flag holding any string.
type stringValue string

func (v *stringValue) String() string     { return string(*v) }
func (v *stringValue) Set(s string) error { *v = stringValue(s); return nil }

// addrValue is a listen address, host:port with a port from 0 to 65535
// (the host may be empty: every interface). A bare port number is
// refused, as net.Listen would refuse it, but with the address meant.
type addrValue string

func (a *addrValue) String() string { return string(*a) }

func (a *addrValue) Set(s string) error {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		if _, perr := strconv.ParseUint(s, 10, 16); perr == nil {
			return fmt.Errorf("want host:port; for every interface, :%s", s)
		}
		return errors.New("want host:port, such as :8080 or 127.0.0.1:8080")
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return errors.New("want a port number from 0 to 65535")
	}
	*a = addrValue(s)
	return nil
}

// optionalAddrValue is an addrValue that may be empty: off.
type optionalAddrValue string

func (a *optionalAddrValue) String() string { return string(*a) }

func (a *optionalAddrValue) Set(s string) error {
	if s != "" {
		if err := (*addrValue)(a).Set(s); err != nil {
			return err
		}
	}
	*a = optionalAddrValue(s)
	return nil
}

func (b *boolValue) String() string   { return strconv.FormatBool(bool(*b)) }
func (b *boolValue) IsBoolFlag() bool { return true }

func (b *boolValue) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	*b = boolValue(v)
	return nil
}

// byteSize is a flag holding a number of bytes, written as a whole number
// with an optional binary suffix: 65536, 64KiB, 64MiB, 1GiB. Every flag
// counting bytes is one, whatever the type of the field it sets, so that
// each takes what the others take.
type byteSize[T ~int | ~int64] struct{ p *T }

// bytesOf is the byte-size flag value setting *p.
func bytesOf[T ~int | ~int64](p *T) byteSize[T] { return byteSize[T]{p} }

func (b byteSize[T]) String() string {
	if b.p == nil { // the flag package's zero value, for its default test
		return "0"
	}
	return formatBytes(int64(*b.p))
}

// formatBytes writes n as byteSize reads it, with the largest suffix that
// divides it.
func formatBytes(n int64) string {
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n != 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b byteSize[T]) Set(s string) error {
	digits, shift := s, uint(0)
	for suffix, sh := range map[string]uint{"KiB": 10, "MiB": 20, "GiB": 30} {
		if d, ok := strings.CutSuffix(s, suffix); ok {
			digits, shift = d, sh
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64>>shift || int64(T(n<<shift)) != n<<shift {
		return errors.New("want a number of bytes, such as 65536 or 64KiB (suffixes KiB, MiB, GiB)")
	}
	*b.p = T(n << shift)
	return nil
}

// TrustedDocumentsOn reports whether cfg asks for trusted documents: a
// manifest, and a mode other than off. The one place that decides it: the
// entry checks the manifest before it listens only then, and the wiring
// loads it only then.
func (cfg Config) TrustedDocumentsOn() bool {
	return cfg.TrustedDocuments != "" && cfg.TrustedDocumentsMode != "" && cfg.TrustedDocumentsMode != graphqlhttp.TrustedOff
}

// check checks every value, and parses trustedProxies and trustedMode, as
// given, into cfg.TrustedProxies and cfg.TrustedDocumentsMode.
func (cfg *Config) check(trustedProxies, trustedMode string) error {
	for _, check := range []func() error{cfg.checkUpstream, cfg.checkRequests, cfg.checkPictures} {
		if err := check(); err != nil {
			return err
		}
	}
	proxies, err := clientaddr.ParseTrustedProxies(trustedProxies)
	if err != nil {
		return fmt.Errorf("invalid -trusted-proxies: %v", err)
	}
	cfg.TrustedProxies = proxies
	return cfg.setTrustedMode(trustedMode)
}

// checkUpstream checks how the upstream is read, and makes the world
// boss's address the base address when it is not given.
func (cfg *Config) checkUpstream() error {
	if cfg.BaseURL != "" {
		if err := checkUpstreamURL(cfg.BaseURL); err != nil {
			return fmt.Errorf("invalid -base-url %q: %v", cfg.BaseURL, err)
		}
	}
	if cfg.WorldBossURL != "" {
		if cfg.BaseURL == "" {
			return errors.New("-worldboss-url needs -base-url")
		}
		if err := checkUpstreamURL(cfg.WorldBossURL); err != nil {
			return fmt.Errorf("invalid -worldboss-url %q: %v", cfg.WorldBossURL, err)
		}
	} else {
		cfg.WorldBossURL = cfg.BaseURL
	}
	if cfg.Refresh < time.Second {
		return fmt.Errorf("invalid -refresh %s: must be at least 1s", cfg.Refresh)
	}
	if cfg.ColdWait <= 0 {
		return fmt.Errorf("invalid -cold-wait %s: must be positive", cfg.ColdWait)
	}
	if cfg.UpstreamTimeout < 100*time.Millisecond {
		return fmt.Errorf("invalid -upstream-timeout %s: must be at least 100ms", cfg.UpstreamTimeout)
	}
	if cfg.MaxUpstreamBytes < 1<<10 {
		return fmt.Errorf("invalid -max-upstream-bytes %d: must be at least 1KiB", cfg.MaxUpstreamBytes)
	}
	return nil
}

// checkRequests checks the bounds on requests and what outlives them.
func (cfg *Config) checkRequests() error {
	l := cfg.Limits
	for _, v := range []struct {
		name  string
		value int64
	}{
		{"max-body-bytes", l.MaxBodyBytes}, {"max-url-bytes", int64(l.MaxURLBytes)}, {"max-tokens", int64(l.MaxTokens)},
		{"max-depth", int64(l.MaxDepth)}, {"max-fields", int64(l.MaxFields)}, {"max-aliases", int64(l.MaxAliases)},
		{"max-directives", int64(l.MaxDirectives)}, {"max-complexity", int64(l.MaxComplexity)},
	} {
		if v.value < 1 {
			return fmt.Errorf("invalid -%s %d: must be at least 1", v.name, v.value)
		}
	}
	if cfg.MaxResponseBytes < 1<<10 || cfg.MaxResponseBytes > 1<<30 {
		return fmt.Errorf("invalid -max-response-bytes %d: must be from 1KiB to 1GiB", cfg.MaxResponseBytes)
	}
	if cfg.MemoryBudget != 0 && cfg.MemoryBudget < 8<<20 {
		return fmt.Errorf("invalid -memory-budget %d: must be 0 (derived) or at least 8MiB", cfg.MemoryBudget)
	}
	if cfg.ShutdownDelay < 0 || cfg.ShutdownDelay > time.Minute {
		return fmt.Errorf("invalid -shutdown-delay %s: must be from 0 to 1m", cfg.ShutdownDelay)
	}
	if cfg.MaxSubscriptions < 0 {
		return fmt.Errorf("invalid -max-subscriptions %d: must be 0 or more", cfg.MaxSubscriptions)
	}
	if cfg.MaxSubscriptionsPerClient < 1 {
		return fmt.Errorf("invalid -max-subscriptions-per-client %d: must be at least 1", cfg.MaxSubscriptionsPerClient)
	}
	if cfg.SubscriptionMaxAge < time.Second {
		// Less, and clients would be reconnecting all the time.
		return fmt.Errorf("invalid -subscription-max-age %s: must be at least 1s", cfg.SubscriptionMaxAge)
	}
	if cfg.RequestTimeout <= 0 {
		return fmt.Errorf("invalid -request-timeout %s: must be positive", cfg.RequestTimeout)
	}
	return nil
}

// checkPurges checks the caches told of changes and reads headers, each
// "Name: value", into cfg.PurgeHeaders.
func (cfg *Config) checkPurges(headers []string) error {
	for _, u := range cfg.PurgeURLs {
		if err := checkPurgeURL(u); err != nil {
			return fmt.Errorf("invalid -purge-url %q: %v", u, err)
		}
	}
	if len(cfg.PurgeURLs) > 0 && cfg.BaseURL == "" {
		return errors.New("-purge-url needs -base-url: the embedded catalogue never changes, so there is nothing to purge")
	}
	if len(headers) > 0 && len(cfg.PurgeURLs) == 0 {
		return errors.New("-purge-header needs -purge-url")
	}
	cfg.PurgeHeaders = nil
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || !validHeader(name, value) {
			// The value may be a secret: it is not repeated.
			return fmt.Errorf("invalid -purge-header %q: want 'Name: value'", name)
		}
		if cfg.PurgeHeaders == nil {
			cfg.PurgeHeaders = http.Header{}
		}
		cfg.PurgeHeaders.Add(name, value)
	}
	return nil
}

// validHeader reports whether name is an HTTP token (RFC 9110 5.6.2) and
// value holds no control character but a tab.
func validHeader(name, value string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	for _, r := range value {
		if r < ' ' && r != '\t' || r == 0x7f {
			return false
		}
	}
	return true
}

// checkPurgeURL checks a cache's address: http or https, with a host. It
// may hold a path and a query, as a cache's purge endpoint may want.
func checkPurgeURL(s string) error {
	_, err := httpURL(s)
	return err
}

// checkPictures checks how the records' pictures are fetched and kept.
func (cfg *Config) checkPictures() error {
	if cfg.ImagesMaxBytes < 1<<10 || cfg.ImagesMaxBytes > 64<<20 {
		return fmt.Errorf("invalid -images-max-bytes %d: must be from 1KiB to 64MiB", cfg.ImagesMaxBytes)
	}
	if cfg.ImagesDiskBytes < cfg.ImagesMaxBytes {
		return fmt.Errorf("invalid -images-disk-bytes %d: must be at least -images-max-bytes (%d)", cfg.ImagesDiskBytes, cfg.ImagesMaxBytes)
	}
	if cfg.ImagesTimeout < 100*time.Millisecond {
		return fmt.Errorf("invalid -images-timeout %s: must be at least 100ms", cfg.ImagesTimeout)
	}
	if cfg.ImagesClientRate < 1 {
		return fmt.Errorf("invalid -images-client-rate %d: must be at least 1", cfg.ImagesClientRate)
	}
	if cfg.ImagesClientBurst < 1 {
		return fmt.Errorf("invalid -images-client-burst %d: must be at least 1", cfg.ImagesClientBurst)
	}
	return nil
}

// setTrustedMode reads -trusted-documents-mode. A manifest given is meant
// to be enforced: a file that silently did nothing would be the worse
// surprise, and log is one flag away.
func (cfg *Config) setTrustedMode(trustedMode string) error {
	switch mode := graphqlhttp.TrustedMode(trustedMode); mode {
	case "":
		cfg.TrustedDocumentsMode = graphqlhttp.TrustedOff
		if cfg.TrustedDocuments != "" {
			cfg.TrustedDocumentsMode = graphqlhttp.TrustedEnforce
		}
	case graphqlhttp.TrustedOff:
		cfg.TrustedDocumentsMode = mode
	case graphqlhttp.TrustedLog, graphqlhttp.TrustedEnforce:
		if cfg.TrustedDocuments == "" {
			return fmt.Errorf("-trusted-documents-mode %s needs -trusted-documents FILE, the manifest of the operations to trust", mode)
		}
		cfg.TrustedDocumentsMode = mode
	default:
		return fmt.Errorf("invalid -trusted-documents-mode %q: want off, log or enforce", trustedMode)
	}
	return nil
}

func checkUpstreamURL(s string) error {
	u, err := httpURL(s)
	if err != nil {
		return err
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return errors.New("a base URL takes no query or fragment")
	}
	return nil
}

// httpURL parses s as an http or https URL with a host, or says which of
// those it is not.
func httpURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, errors.New("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, errors.New("want an http or https URL")
	}
	if u.Host == "" {
		return nil, errors.New("no host")
	}
	return u, nil
}
