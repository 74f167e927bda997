package main

import (
	"encoding/json"
	"net/http"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// readiness is the body of /readyz.
type readiness struct {
	Status      string                         `json:"status"`
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
}

// readyHandler answers 200 once every collection has a good snapshot, and
// 503 naming the missing collections before that.
func readyHandler(store *catalogue.Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rd := readiness{Status: "ready", Collections: map[string]collectionReadiness{}, Integrity: []catalogue.Dangling{}}
		snap := store.Current()
		if snap != nil {
			rd.Version = snap.Version()
			rd.Integrity = snap.Integrity()
		}
		for c := range catalogue.NumCollections {
			var body *catalogue.Body
			if snap != nil {
				body = snap.Body(c)
			}
			if body == nil {
				rd.Missing = append(rd.Missing, c.String())
				rd.Collections[c.String()] = collectionReadiness{}
				continue
			}
			rd.Collections[c.String()] = collectionReadiness{Ready: true, Records: snap.Len(c), ETag: body.ETag()}
		}
		status := http.StatusOK
		if len(rd.Missing) > 0 {
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
