package gateway

import (
	"encoding/json"
	"math"
	"net/http"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/internal/buildinfo"
)

// readiness is the body of /readyz.
type readiness struct {
	Status string `json:"status"`
	// Build is the gateway's own version, not the data's.
	Build buildinfo.Info `json:"build"`
	// Version identifies the snapshot's data; equal on replicas that hold
	// the same upstream bodies.
	Version     string                         `json:"version,omitempty"`
	Missing     []string                       `json:"missing,omitempty"`
	Collections map[string]collectionReadiness `json:"collections"`
	// Integrity lists, per kind of reference, how many point at no
	// record: a broken upstream catalogue shows here without logs.
	Integrity []catalogue.Dangling `json:"integrity"`
}

type collectionReadiness struct {
	Ready   bool   `json:"ready"`
	Records int    `json:"records"`
	ETag    string `json:"etag,omitempty"`
	// AgeSeconds is how long ago the upstream last gave or confirmed the
	// body being served.
	AgeSeconds *float64 `json:"ageSeconds,omitempty"`
	catalogue.CollectionState
}

// readyHandler answers 200 once every collection has a good snapshot, and
// 503 naming the missing collections, with their last errors, before that;
// 503 with the status "draining" once draining reports the server is
// shutting down.
func readyHandler(store *catalogue.Store, states func() [catalogue.NumCollections]catalogue.CollectionState, draining func() bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rd := readiness{Status: "ready", Build: buildinfo.Get(), Collections: map[string]collectionReadiness{}, Integrity: []catalogue.Dangling{}}
		snap := store.Current()
		if snap == nil {
			snap = catalogue.NewSnapshot()
		} else {
			rd.Version = snap.Version()
			rd.Integrity = snap.Integrity()
		}
		st := states()
		now := time.Now()
		for c := range catalogue.NumCollections {
			cr := collectionReadiness{CollectionState: st[c]}
			if body := snap.Body(c); body != nil {
				cr.Ready, cr.Records, cr.ETag = true, snap.Len(c), body.ETag()
				if at := st[c].CheckedAt; !at.IsZero() {
					age := math.Round(now.Sub(at).Seconds()*1000) / 1000
					cr.AgeSeconds = &age
				}
			} else {
				rd.Missing = append(rd.Missing, c.String())
			}
			rd.Collections[c.String()] = cr
		}
		status := http.StatusOK
		switch {
		case draining():
			rd.Status = "draining"
			status = http.StatusServiceUnavailable
		case len(rd.Missing) > 0:
			rd.Status = "unavailable"
			status = http.StatusServiceUnavailable
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(rd)
	})
}
