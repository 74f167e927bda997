package main

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// newMetricsHandler serves /metrics from a registry of the gateway's own,
// never the global one: the process's Go and process metrics, and the
// state of the snapshot being served, read at scrape time.
func newMetricsHandler(store *catalogue.Store) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		snapshotCollector{store: store},
	)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

var (
	snapshotInfoDesc = prometheus.NewDesc("catalogue_snapshot_info",
		"The snapshot being served; its version label is derived from the upstream bodies alone.",
		[]string{"version"}, nil)
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
	store *catalogue.Store
}

func (c snapshotCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{snapshotInfoDesc, collectionReadyDesc, collectionRecordsDesc, referencesDesc, danglingDesc} {
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
	for col := range catalogue.NumCollections {
		ready := 0.0
		if snap.Part(col) != nil {
			ready = 1
		}
		ch <- prometheus.MustNewConstMetric(collectionReadyDesc, prometheus.GaugeValue, ready, col.String())
		ch <- prometheus.MustNewConstMetric(collectionRecordsDesc, prometheus.GaugeValue, float64(snap.Len(col)), col.String())
	}
	for _, d := range snap.Integrity() {
		ch <- prometheus.MustNewConstMetric(referencesDesc, prometheus.GaugeValue, float64(d.Total), d.Reference, d.Target.String())
		ch <- prometheus.MustNewConstMetric(danglingDesc, prometheus.GaugeValue, float64(d.Count), d.Reference, d.Target.String())
	}
}
