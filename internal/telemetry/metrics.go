package telemetry

import (
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/graphqlhttp/answers"
	"github.com/catalogue-gateway/gateway/internal/buildinfo"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/internal/memory"
	"github.com/catalogue-gateway/gateway/pictures"
)

// Metrics is the gateway's Prometheus registry, its own rather than the
// global one, and the instruments the refresher reports into (it
// implements catalogue.Observer).
type Metrics struct {
	reg              *prometheus.Registry
	upstreamRequests *prometheus.CounterVec
	upstreamDuration *prometheus.HistogramVec
	bodiesRejected   *prometheus.CounterVec
	refreshDuration  prometheus.Histogram

	graphqlRequests *prometheus.CounterVec
	graphqlDuration *prometheus.HistogramVec
	streamDuration  *prometheus.HistogramVec
	graphqlBytes    prometheus.Histogram
	graphqlRejected *prometheus.CounterVec
	graphqlStreams  prometheus.Gauge
	loaderBatch     *prometheus.HistogramVec
	cacheLookups    *prometheus.CounterVec
	operationsRun   *prometheus.CounterVec
	engineDeclines  *prometheus.CounterVec
	trustedChecks   *prometheus.CounterVec
	trustedReloads  *prometheus.CounterVec
	trustedStale    prometheus.Gauge
	picturesServed  *prometheus.CounterVec
	pictureFetches  *prometheus.CounterVec
	pictureFetchDur prometheus.Histogram
	purgeRequests   *prometheus.CounterVec
	purgeKeys       *prometheus.CounterVec

	// The children of the vectors used for every request and batch.
	requestsBy *children[*children[prometheus.Counter]] // by operation, then outcome
	durationBy *children[prometheus.Observer]
	batchBy    *children[prometheus.Observer]
	runBy      *children[prometheus.Counter]

	// operations bounds the operation names used as label values: the
	// names come from callers, and every new one would be a new series.
	mu         sync.Mutex
	operations map[string]bool
}

// maxOperationLabels is how many distinct operation names get a series of
// their own; the rest count as "other".
const maxOperationLabels = 200

// NewMetrics returns the gateway's metrics. refresh is the upstream's
// refresh interval (0 when the embedded catalogue is served, which is never
// refreshed) and maxSubscriptions the cap on open subscription streams:
// exported so that alerts can be written against them rather than against
// numbers copied from the manifests.
func NewMetrics(store *catalogue.Store, states func() [catalogue.NumCollections]catalogue.CollectionState, cache *answers.Cache,
	memory *memory.Budget, refresh time.Duration, maxSubscriptions int) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), operations: map[string]bool{}}
	m.upstreamInstruments()
	m.graphqlInstruments()
	m.trustedInstruments()
	m.pictureInstruments()
	m.purgeInstruments()
	m.requestsBy = newChildren(func(operation ...string) *children[prometheus.Counter] {
		return newChildren(func(outcome ...string) prometheus.Counter {
			return m.graphqlRequests.WithLabelValues(operation[0], outcome[0])
		})
	})
	m.durationBy = newChildren(m.graphqlDuration.WithLabelValues)
	m.batchBy = newChildren(m.loaderBatch.WithLabelValues)
	m.runBy = newChildren(m.operationsRun.WithLabelValues)
	m.reg.MustRegister(
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(
			// go_gc_heap_live_bytes: the heap the last collection found
			// live, what the snapshot and every store hold. The default
			// go_memstats_heap_* count the garbage not yet collected too,
			// which at GOGC=400 is up to four times as much again.
			collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/gc/heap/live:bytes$`)})),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.upstreamRequests, m.upstreamDuration, m.bodiesRejected, m.refreshDuration,
		m.graphqlRequests, m.graphqlDuration, m.streamDuration, m.graphqlBytes, m.graphqlRejected, m.graphqlStreams, m.loaderBatch, m.cacheLookups, m.operationsRun, m.engineDeclines,
		m.trustedChecks, m.trustedReloads, m.trustedStale,
		m.picturesServed, m.pictureFetches, m.pictureFetchDur,
		snapshotCollector{store: store, states: states},
		storeCollector{memory},
		buildInfoGauge(buildinfo.Get()),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "graphql_response_cache_bytes",
			Help: "Memory held by cached GraphQL answers, compressed variants included.",
		}, func() float64 { return float64(cache.Stats().Bytes) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "graphql_response_cache_entries",
			Help: "GraphQL answers in the response cache.",
		}, func() float64 { return float64(cache.Stats().Entries) }),
	)
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "graphql_subscriptions_max",
		Help: "The cap on subscription streams open at once (-max-subscriptions); 0 when subscriptions are off.",
	}, func() float64 { return float64(maxSubscriptions) }))
	if refresh > 0 {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "catalogue_refresh_interval_seconds",
			Help: "How often the upstream is read again (-refresh), give or take a tenth.",
		}, func() float64 { return refresh.Seconds() }))
	}
	m.presetLabels()
	return m
}

// upstreamInstruments makes the instruments the refresher reports into:
// its requests, the bodies it refused, its rounds.
func (m *Metrics) upstreamInstruments() {
	m.upstreamRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "catalogue_upstream_requests_total",
		Help: "Upstream requests by collection and outcome: 200, 304, status_NNN, timeout, connection, read, too_large, redirect (refused).",
	}, []string{"collection", "outcome"})
	// From a loopback upstream's few milliseconds to the 30 s
	// -upstream-timeout, past which a request is a timeout.
	m.upstreamDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "catalogue_upstream_request_duration_seconds",
		Help:    "Upstream request latency, body included, by collection and outcome (as catalogue_upstream_requests_total).",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"collection", "outcome"})
	m.bodiesRejected = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "catalogue_upstream_bodies_rejected_total",
		Help: "Upstream bodies refused because they are not JSON of the collection's shape; the last good body stays.",
	}, []string{"collection"})
	m.refreshDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "catalogue_refresh_duration_seconds",
		Help:    "How long a refresh round of every collection took.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 14),
	})
}

// graphqlInstruments makes the instruments of /graphql: its requests,
// streams, refusals, loaders' batches, cache and executors.
func (m *Metrics) graphqlInstruments() {
	m.graphqlRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "graphql_requests_total",
		Help: "GraphQL requests by operation name and outcome (ok, error, rejected, timeout).",
	}, []string{"operation", "outcome"})
	m.graphqlDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "graphql_request_duration_seconds",
		Help:    "GraphQL request latency by outcome; subscription streams are in graphql_stream_duration_seconds.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 2, 18),
	}, []string{"outcome"})
	m.streamDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "graphql_stream_duration_seconds",
		Help: "How long subscription streams (event streams and WebSockets) stayed open, by outcome.",
		// From a client gone at once to the longest -subscription-max-age.
		Buckets: prometheus.ExponentialBuckets(0.1, 4, 10),
	}, []string{"outcome"})
	m.graphqlBytes = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "graphql_response_bytes",
		Help:    "Size of GraphQL response bodies.",
		Buckets: prometheus.ExponentialBuckets(64, 4, 10),
	})
	m.graphqlRejected = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "graphql_rejected_total",
		Help: "GraphQL requests refused by a limit, by limit.",
	}, []string{"limit"})
	m.loaderBatch = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "loader_batch_keys",
		Help:    "Keys per dataloader batch, by kind of record.",
		Buckets: prometheus.ExponentialBuckets(1, 2, 11),
	}, []string{"kind"})
	m.cacheLookups = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "graphql_response_cache_lookups_total",
		Help: "GraphQL response cache lookups by result: hit, or miss (the query ran).",
	}, []string{"result"})
	m.graphqlStreams = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "graphql_subscriptions_open",
		Help: "Subscription event streams open now (at most -max-subscriptions).",
	})
	m.operationsRun = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "graphql_operations_total",
		Help: "GraphQL operations run, by executor: engine, or gqlgen (gqlgen's executor, for what the engine declines).",
	}, []string{"executor"})
	m.engineDeclines = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "graphql_engine_declines_total",
		Help: "GraphQL operations the engine left to gqlgen's executor, by reason: operation (not a query), introspection, directive (@defer and the like), plan (a part the compiler declines), run, panic (a bug: logged with its stack), other.",
	}, []string{"reason"})
}

// trustedInstruments makes the trusted documents' instruments: the
// checks and the manifest's reloads.
func (m *Metrics) trustedInstruments() {
	m.trustedChecks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "graphql_trusted_documents_total",
		Help: "GraphQL requests checked against -trusted-documents, answers from the response cache included, by outcome: listed, unlisted (run: log mode), refused (enforce mode, PERSISTED_QUERY_NOT_LISTED).",
	}, []string{"outcome"})
	m.trustedReloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gateway_trusted_documents_reloads_total",
		Help: "Reloads of -trusted-documents (SIGHUP), by result: ok, or error (the file was refused, and the previous manifest stays).",
	}, []string{"result"})
	m.trustedStale = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "gateway_trusted_documents_reload_failed",
		Help: "1 while the last reload of -trusted-documents was refused: the file on disk is not the manifest in force (the previous one is). 0 otherwise.",
	})
}

// pictureInstruments makes the pictures' instruments: what /images/
// served and the fetches it made.
func (m *Metrics) pictureInstruments() {
	m.picturesServed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gateway_pictures_served_total",
		Help: "Answers of /images/ by outcome: memory, disk, fetched (the picture), placeholder (no address, or fetching off), failed (the fetch failed now or is remembered as failed), rate_limited, not_found, unready, canceled.",
	}, []string{"outcome"})
	m.pictureFetches = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gateway_picture_fetches_total",
		Help: "Fetches of the catalogue's pictures by outcome: ok, bad_address, refused_address (not public, or not port 80 or 443), redirect, timeout, connection, status, not_image, too_large, read, canceled (every request waiting for it left first).",
	}, []string{"outcome"})
	m.pictureFetchDur = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "gateway_picture_fetch_duration_seconds",
		Help:    "How long a picture's fetch took, whatever its outcome.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	})
}

// purgeInstruments makes the instruments of the purges sent to the caches
// in front of the gateway (package purge).
func (m *Metrics) purgeInstruments() {
	m.purgeRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gateway_purge_requests_total",
		Help: "PURGE requests to the -purge-url endpoints, by outcome: sent (answered 2xx), failed (given up after its tries, or refused).",
	}, []string{"outcome"})
	m.purgeKeys = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gateway_purge_keys_total",
		Help: "Surrogate-Keys in PURGE requests, by outcome: sent, failed (as gateway_purge_requests_total), dropped (a record's key left out of a full queue; its collection's key was still sent).",
	}, []string{"outcome"})
	m.reg.MustRegister(m.purgeRequests, m.purgeKeys)
}

// PurgeRequest implements purge.Observer.
func (m *Metrics) PurgeRequest(outcome string, keys int) {
	m.purgeRequests.WithLabelValues(outcome).Inc()
	m.purgeKeys.WithLabelValues(outcome).Add(float64(keys))
}

// PurgeDropped implements purge.Observer.
func (m *Metrics) PurgeDropped(keys int) { m.purgeKeys.WithLabelValues("dropped").Add(float64(keys)) }

// presetLabels makes the series of every known label value, so that
// each is 0 from the start rather than absent until its first event.
func (m *Metrics) presetLabels() {
	for _, result := range []string{"hit", "miss"} {
		m.cacheLookups.WithLabelValues(result)
	}
	for _, executor := range []string{"engine", "gqlgen"} {
		m.operationsRun.WithLabelValues(executor)
	}
	for _, reason := range execution.DeclineReasons {
		m.engineDeclines.WithLabelValues(reason)
	}
	for _, outcome := range []string{"listed", "unlisted", "refused"} {
		m.trustedChecks.WithLabelValues(outcome)
	}
	for _, result := range []string{"ok", "error"} {
		m.trustedReloads.WithLabelValues(result)
	}
	for _, outcome := range pictures.ServedOutcomes {
		m.picturesServed.WithLabelValues(outcome)
	}
	for _, outcome := range pictures.FetchOutcomes {
		m.pictureFetches.WithLabelValues(outcome)
	}
	for _, outcome := range []string{"sent", "failed"} {
		m.purgeRequests.WithLabelValues(outcome)
		m.purgeKeys.WithLabelValues(outcome)
	}
	m.purgeKeys.WithLabelValues("dropped")
}

var _ graphqlhttp.TrustObserver = (*Metrics)(nil)

// Trusted implements graphqlhttp.TrustObserver.
func (m *Metrics) Trusted(outcome string) { m.trustedChecks.WithLabelValues(outcome).Inc() }

// TrustedReload counts a reload of the trusted documents, taken (ok) or
// refused.
func (m *Metrics) TrustedReload(ok bool) {
	result, failed := "ok", 0.0
	if !ok {
		result, failed = "error", 1
	}
	m.trustedReloads.WithLabelValues(result).Inc()
	m.trustedStale.Set(failed)
}

// PictureServed implements pictures.Observer.
func (m *Metrics) PictureServed(outcome string) { m.picturesServed.WithLabelValues(outcome).Inc() }

// PictureFetched implements pictures.Observer.
func (m *Metrics) PictureFetched(outcome string, d time.Duration) {
	m.pictureFetches.WithLabelValues(outcome).Inc()
	m.pictureFetchDur.Observe(d.Seconds())
}

// PictureDisk reports the pictures' disk cache (bytes and files) when
// scraped; call it once, when there is one.
func (m *Metrics) PictureDisk(stats func() (int64, int)) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "gateway_picture_disk_bytes",
			Help: "Bytes of pictures kept under -cache-dir (at most -images-disk-bytes).",
		}, func() float64 { b, _ := stats(); return float64(b) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "gateway_picture_disk_files",
			Help: "Pictures kept under -cache-dir.",
		}, func() float64 { _, n := stats(); return float64(n) }),
	)
}

// buildInfoGauge is gateway_build_info: always 1, its labels saying which
// build runs, so that a dashboard can show a rollout and a rule join on
// it.
func buildInfoGauge(b buildinfo.Info) prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "gateway_build_info",
		Help:        "The running gateway's build: version, commit and Go version as labels; always 1.",
		ConstLabels: prometheus.Labels{"version": b.Version, "commit": b.Commit, "goversion": b.GoVersion},
	})
	g.Set(1)
	return g
}

func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// UpstreamRequest implements catalogue.Observer.
func (m *Metrics) UpstreamRequest(c catalogue.Collection, outcome string, d time.Duration) {
	m.upstreamRequests.WithLabelValues(c.String(), outcome).Inc()
	m.upstreamDuration.WithLabelValues(c.String(), outcome).Observe(d.Seconds())
}

// BodyRejected implements catalogue.Observer.
func (m *Metrics) BodyRejected(c catalogue.Collection) {
	m.bodiesRejected.WithLabelValues(c.String()).Inc()
}

// RefreshDone implements catalogue.Observer.
func (m *Metrics) RefreshDone(d time.Duration) { m.refreshDuration.Observe(d.Seconds()) }

// Request implements graphqlhttp.Observer.
func (m *Metrics) Request(operation, outcome string, d time.Duration, bytes int) {
	m.requestsBy.get(m.operationLabel(operation)).get(outcome).Inc()
	m.durationBy.get(outcome).Observe(d.Seconds())
	m.graphqlBytes.Observe(float64(bytes))
}

// StreamEnded implements graphqlhttp.Observer. A stream is counted as a
// request, but its lifetime is kept apart from the requests' latency.
func (m *Metrics) StreamEnded(operation, outcome string, d time.Duration) {
	m.requestsBy.get(m.operationLabel(operation)).get(outcome).Inc()
	m.streamDuration.WithLabelValues(outcome).Observe(d.Seconds())
}

// Rejected implements graphqlhttp.Observer.
func (m *Metrics) Rejected(limit string) { m.graphqlRejected.WithLabelValues(limit).Inc() }

// Streams implements graphqlhttp.Observer.
func (m *Metrics) Streams(delta int) { m.graphqlStreams.Add(float64(delta)) }

// Executed counts an operation run, by executor.
func (m *Metrics) Executed(executor string) { m.runBy.get(executor).Inc() }

// Declined counts an operation the engine left to gqlgen, by why.
func (m *Metrics) Declined(reason string) { m.engineDeclines.WithLabelValues(reason).Inc() }

// Cached implements graphqlhttp.Observer.
func (m *Metrics) Cached(hit bool) {
	if hit {
		m.cacheLookups.WithLabelValues("hit").Inc()
	} else {
		m.cacheLookups.WithLabelValues("miss").Inc()
	}
}

// LoaderBatch is loader.Options.OnBatch.
func (m *Metrics) LoaderBatch(kind string, keys int) {
	m.batchBy.get(kind).Observe(float64(keys))
}

// operationLabel is the label value for an operation name: the name if it
// is a plain GraphQL name and one of the first maxOperationLabels seen,
// "anonymous" for none, "other" otherwise.
func (m *Metrics) operationLabel(name string) string {
	if name == "" {
		return "anonymous"
	}
	if len(name) > 64 || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != "" {
		return "other"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.operations[name] {
		return name
	}
	if len(m.operations) >= maxOperationLabels {
		return "other"
	}
	m.operations[name] = true
	return name
}

var (
	snapshotInfoDesc = prometheus.NewDesc("catalogue_snapshot_info",
		"The snapshot being served; its version label is derived from the upstream bodies alone.",
		[]string{"version"}, nil)
	snapshotAgeDesc = prometheus.NewDesc("catalogue_snapshot_age_seconds",
		"Seconds since the upstream last gave or confirmed the collection's body.",
		[]string{"collection"}, nil)
	// The timestamp is what alerts read: time() minus it is the age at
	// evaluation, where the age gauge is the age when last scraped, and it
	// stays true in a series whose scrapes stop.
	lastGoodDesc = prometheus.NewDesc("catalogue_last_good_read_timestamp_seconds",
		"Unix time the upstream last gave or confirmed (304) the collection's body being served.",
		[]string{"collection"}, nil)
	collectionReadyDesc = prometheus.NewDesc("catalogue_collection_ready",
		"1 if the collection has a good snapshot, else 0.", []string{"collection"}, nil)
	collectionRecordsDesc = prometheus.NewDesc("catalogue_collection_records",
		"Records in the collection's snapshot.", []string{"collection"}, nil)
	referencesDesc = prometheus.NewDesc("catalogue_references",
		"References of a kind in the snapshot (ids of 0, meaning none, are not counted).",
		[]string{"reference", "target"}, nil)
	danglingDesc = prometheus.NewDesc("catalogue_references_dangling",
		"References of a kind that point at no record: a sign of a broken upstream catalogue.",
		[]string{"reference", "target"}, nil)
)

// snapshotCollector reports the current snapshot each time it is scraped,
// so the figures are never older than the snapshot itself.
type snapshotCollector struct {
	store  *catalogue.Store
	states func() [catalogue.NumCollections]catalogue.CollectionState
}

func (c snapshotCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{snapshotInfoDesc, snapshotAgeDesc, lastGoodDesc, collectionReadyDesc,
		collectionRecordsDesc, referencesDesc, danglingDesc} {
		ch <- d
	}
}

func (c snapshotCollector) Collect(ch chan<- prometheus.Metric) {
	snap := c.store.Current()
	if snap == nil {
		snap = catalogue.NewSnapshot()
	} else {
		ch <- prometheus.MustNewConstMetric(snapshotInfoDesc, prometheus.GaugeValue, 1, snap.Version())
	}
	states := c.states()
	now := time.Now()
	for col := range catalogue.NumCollections {
		ready := 0.0
		if snap.Part(col) != nil {
			ready = 1
		}
		ch <- prometheus.MustNewConstMetric(collectionReadyDesc, prometheus.GaugeValue, ready, col.String())
		ch <- prometheus.MustNewConstMetric(collectionRecordsDesc, prometheus.GaugeValue, float64(snap.Len(col)), col.String())
		if at := states[col].CheckedAt; !at.IsZero() && ready == 1 {
			ch <- prometheus.MustNewConstMetric(snapshotAgeDesc, prometheus.GaugeValue, now.Sub(at).Seconds(), col.String())
			ch <- prometheus.MustNewConstMetric(lastGoodDesc, prometheus.GaugeValue, float64(at.UnixMilli())/1e3, col.String())
		}
	}
	for _, d := range snap.Integrity() {
		ch <- prometheus.MustNewConstMetric(referencesDesc, prometheus.GaugeValue, float64(d.Total), d.Reference, d.Target.String())
		ch <- prometheus.MustNewConstMetric(danglingDesc, prometheus.GaugeValue, float64(d.Count), d.Reference, d.Target.String())
	}
}

// storeCollector reports each store of the memory budget (see
// memory.Budget): what it is charged, its share, its entries and its
// evictions, read from the stores when scraped.
type storeCollector struct{ memory *memory.Budget }

var (
	storeBytesDesc = prometheus.NewDesc("gateway_store_bytes",
		"Memory charged to a store that outlives requests (documents, renderings, response_cache, persisted_queries, websocket_buffers, live_queries, pictures): entries at their real size, keys and overhead included.", []string{"store"}, nil)
	storeShareDesc = prometheus.NewDesc("gateway_store_share_bytes",
		"A store's share of the memory budget (-memory-budget), the most it may be charged.", []string{"store"}, nil)
	storeEntriesDesc = prometheus.NewDesc("gateway_store_entries",
		"Entries a store holds now.", []string{"store"}, nil)
	storeEvictionsDesc = prometheus.NewDesc("gateway_store_evictions_total",
		"Entries a store let go to stay within its share, or (renderings, response_cache) dropped with their snapshot.", []string{"store"}, nil)
	memoryBudgetDesc = prometheus.NewDesc("gateway_memory_budget_bytes",
		"The memory budget every store draws from (-memory-budget, or a quarter of GOMEMLIMIT).", nil, nil)
)

func (c storeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{storeBytesDesc, storeShareDesc, storeEntriesDesc, storeEvictionsDesc, memoryBudgetDesc} {
		ch <- d
	}
}

func (c storeCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(memoryBudgetDesc, prometheus.GaugeValue, float64(c.memory.Bytes()))
	for _, st := range c.memory.Stats() {
		ch <- prometheus.MustNewConstMetric(storeBytesDesc, prometheus.GaugeValue, float64(st.Bytes), st.Store)
		ch <- prometheus.MustNewConstMetric(storeShareDesc, prometheus.GaugeValue, float64(st.Share), st.Store)
		ch <- prometheus.MustNewConstMetric(storeEntriesDesc, prometheus.GaugeValue, float64(st.Entries), st.Store)
		ch <- prometheus.MustNewConstMetric(storeEvictionsDesc, prometheus.CounterValue, float64(st.Evictions), st.Store)
	}
}
