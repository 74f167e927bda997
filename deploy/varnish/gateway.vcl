vcl 4.1;

# Varnish in front of the catalogue gateway's replicas: it keeps what the
# gateway says may be kept, for as long as the gateway says, and drops
# exactly what a refresh changed when a gateway purges by key.
#
# For Debian's varnish (7.1) with varnish-modules (xkey). Install this file
# and your backends.vcl in /etc/varnish (the default vcl_path), then start
# varnishd with -f /etc/varnish/gateway.vcl. docs/operations.md ("Behind a
# CDN") says how the gateway is set up to match.

import directors;
import std;
import xkey;

# backends.vcl is yours: the gateway's replicas as backends, and in
# vcl_init a director named `gateways` that this file asks for a backend
# (any director of vmod_directors: round_robin, random, shard, fallback):
#
#   backend replica1 { .host = "10.0.0.11"; .port = "8080"; }
#   backend replica2 { .host = "10.0.0.12"; .port = "8080"; }
#   sub vcl_init {
#       new gateways = directors.round_robin();
#       gateways.add_backend(replica1);
#       gateways.add_backend(replica2);
#   }
#
# backends.vcl.example beside this file is that, to copy.
include "backends.vcl";

# Who may purge: the gateways send PURGE after each refresh that changed
# something. Loopback only, as shipped; add your replicas' addresses or
# their network ("10.0.0.0"/24;), since anyone who may purge can empty
# the cache and send every request to the gateways.
acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    set req.backend_hint = gateways.backend();

    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        if (!req.http.Surrogate-Key) {
            return (synth(400, "PURGE needs a Surrogate-Key header"));
        }
        # Hard: every object carrying one of the keys goes at once, grace
        # and all. A soft purge would serve the old answer once more while
        # it fetched the new one, and the next GET would not be fresh.
        # The keys are space-separated; several headers are joined.
        std.collect(req.http.Surrogate-Key, " ");
        set req.http.X-Purged = xkey.purge(req.http.Surrogate-Key);
        return (synth(200, "Purged " + req.http.X-Purged));
    }

    # A WebSocket (graphql-transport-ws) is a byte stream both ways.
    if (req.http.Upgrade ~ "(?i)websocket") {
        return (pipe);
    }
    # POST answers are never cacheable, nor anything but a read.
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    # An event stream lives until the gateway ends it
    # (-subscription-max-age, 30m by default), longer than send_timeout's
    # 10 minutes; passed, so that no other request waits on it as on a
    # fetch it could share.
    if (req.http.Accept ~ "(?i)text/event-stream") {
        set sess.send_timeout = 1h;
        return (pass);
    }
    # The gateway reads neither, so neither changes an answer; a request
    # that names who sends it is still passed, as Varnish's own rules do,
    # in case something in front of the gateway does read it.
    if (req.http.Authorization) {
        return (pass);
    }
    unset req.http.Cookie;
    return (hash);
}

sub vcl_pipe {
    # A piped request is sent with Connection: close; a WebSocket
    # handshake needs Upgrade and Connection as the client sent them.
    if (req.http.Upgrade) {
        set bereq.http.Upgrade = req.http.Upgrade;
        set bereq.http.Connection = req.http.Connection;
    }
    return (pipe);
}

sub vcl_backend_response {
    # A passed request's answer is streamed through, never stored.
    if (bereq.uncacheable) {
        return (deliver);
    }
    # The records and lists an answer read, for xkey.purge to find it by.
    if (beresp.http.Surrogate-Key) {
        set beresp.http.xkey = beresp.http.Surrogate-Key;
    }
    # Only what the gateway says a shared cache may keep is kept: a
    # complete answer, public, with a max-age. Varnish has already read
    # max-age into beresp.ttl and stale-while-revalidate into beresp.grace.
    # Anything else (errors: no-store; event streams: no-store; private
    # answers; pages that must be revalidated: no-cache; answers with no
    # Cache-Control, which Varnish would otherwise keep for default_ttl)
    # is remembered for two minutes as not to be kept, so that requests
    # for it are not queued behind each other's fetches.
    if (beresp.status != 200 ||
        !beresp.http.Cache-Control ||
        beresp.http.Cache-Control ~ "(?i)(no-store|no-cache|private)" ||
        beresp.http.Set-Cookie ||
        beresp.http.Vary == "*" ||
        beresp.ttl <= 0s) {
        set beresp.ttl = 120s;
        set beresp.uncacheable = true;
        return (deliver);
    }
    return (deliver);
}

sub vcl_deliver {
    # What the cache did, for people and tests: HIT (fresh), STALE (in
    # grace, refetched behind it), MISS (fetched and kept), PASS (not
    # kept: passed, or remembered as not to be kept).
    if (obj.uncacheable) {
        set resp.http.X-Cache = "PASS";
    } elsif (obj.hits > 0 && obj.ttl > 0s) {
        set resp.http.X-Cache = "HIT";
    } elsif (obj.hits > 0) {
        set resp.http.X-Cache = "STALE";
    } else {
        set resp.http.X-Cache = "MISS";
    }
    # The keys are for caches to purge by; nothing after this one does.
    # With another CDN in front of Varnish, keep the one it reads
    # (Surrogate-Key, or Cache-Tag for Cloudflare).
    unset resp.http.xkey;
    unset resp.http.Surrogate-Key;
    unset resp.http.Cache-Tag;
}
