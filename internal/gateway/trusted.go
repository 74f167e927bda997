package gateway

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/catalogue-gateway/gateway/graphqlhttp/documents"

	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/internal/config"
)

// ReadTrustedDocuments reads cfg's -trusted-documents and checks it: its
// format, that it lists documents (unless -trusted-documents-allow-empty),
// and that each of its documents is one the gateway would run (it parses,
// is within cfg's limits and is valid against the schema).
// The error names the file and what is wrong. The entry calls it before
// it listens, so that a bad file is refused as a bad flag is, in one line
// and with exit status 2; New reads it again to load it.
func ReadTrustedDocuments(cfg config.Config) (documents.Manifest, error) {
	data, err := os.ReadFile(cfg.TrustedDocuments)
	if err != nil {
		return documents.Manifest{}, fmt.Errorf("reading -trusted-documents: %w", err)
	}
	m, err := documents.ParseManifest(data)
	if err != nil {
		return m, fmt.Errorf("invalid -trusted-documents %s: %w", cfg.TrustedDocuments, err)
	}
	if len(m.Documents) == 0 && !cfg.TrustedDocumentsAllowEmpty {
		// A file emptied by mistake (a failed build, "{}") would otherwise
		// be in force: in enforce mode, refusing every operation.
		return m, fmt.Errorf("invalid -trusted-documents %s: it lists no documents; give -trusted-documents-allow-empty if that is meant", cfg.TrustedDocuments)
	}
	if err := graphqlhttp.CheckManifest(m, graph.ServedSchema(), endpointLimits(cfg), cfg.Introspection); err != nil {
		return m, fmt.Errorf("invalid -trusted-documents %s: %w", cfg.TrustedDocuments, err)
	}
	return m, nil
}

// loadTrustedDocuments reads the manifest for New.
func (g *Gateway) loadTrustedDocuments() error {
	if !g.cfg.TrustedDocumentsOn() {
		return nil
	}
	m, err := ReadTrustedDocuments(g.cfg)
	if err != nil {
		return err
	}
	g.trusted = graphqlhttp.NewTrustedDocuments(g.cfg.TrustedDocumentsMode, m)
	g.logger.Info("trusted documents", "file", g.cfg.TrustedDocuments, "mode", string(g.cfg.TrustedDocumentsMode),
		"format", m.Format, "documents", len(m.Documents))
	return nil
}

// ReloadTrustedDocuments reads -trusted-documents again and, if it is
// valid, makes it the manifest every request from now on is held to
// (each sees the old one or the new one, never both); if it is not, the
// old one stays. Either way the outcome is logged (an ERROR for a file
// refused) and counted (gateway_trusted_documents_reloads_total). SIGHUP
// calls it; it does nothing when trusted documents are off.
func (g *Gateway) ReloadTrustedDocuments() error {
	if g.trusted == nil {
		return nil
	}
	m, err := ReadTrustedDocuments(g.cfg)
	if err == nil {
		err = g.trusted.Replace(m)
		if err != nil {
			err = fmt.Errorf("invalid -trusted-documents %s: %w", g.cfg.TrustedDocuments, err)
		}
	}
	g.metrics.TrustedReload(err == nil)
	if err != nil {
		g.logger.Error("trusted documents: reload refused; the previous manifest stays", "file", g.cfg.TrustedDocuments, "err", err)
		return err
	}
	g.logger.Info("trusted documents reloaded", "file", g.cfg.TrustedDocuments, "format", m.Format, "documents", len(m.Documents))
	return nil
}

// reloadOnHangup reloads the trusted documents on each SIGHUP until ctx
// ends. Only with trusted documents is SIGHUP caught: otherwise it keeps
// its default action, as before they existed.
func (g *Gateway) reloadOnHangup(ctx context.Context) (stop func()) {
	if g.trusted == nil {
		return func() {}
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				g.ReloadTrustedDocuments()
			}
		}
	}()
	return func() {
		signal.Stop(hup)
		cancel()
		<-done
	}
}
