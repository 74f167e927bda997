# The gateway's container image: a static binary with the embedded
# catalogue and the browser apps inside, on an empty base, run as a
# non-root user. No shell, no package manager: nothing to patch but the
# binary itself.
#
#   docker build --build-arg VERSION=1.0.0 --build-arg COMMIT=$(git rev-parse --short=12 HEAD) \
#     -t catalogue-gateway:1.0.0 .
#   docker run -p 8080:8080 -e CATALOGUE_BASE_URL=https://… catalogue-gateway
#
# Every flag is an environment variable (docs/operations.md, Flags); the defaults below
# are the ones a container needs to differ.

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Modules first, so that a change of source reuses their layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The build context has no .git: the version and commit come in as
# arguments (see deploy/build.sh), shown by -version, /readyz and
# gateway_build_info.
ARG VERSION=dev
ARG COMMIT=
RUN VERSION="$VERSION" COMMIT="$COMMIT" sh deploy/build.sh /out/gateway \
 && mkdir -p /out/cache

FROM scratch
ARG VERSION=dev
ARG COMMIT=
LABEL org.opencontainers.image.title="catalogue-gateway" \
      org.opencontainers.image.description="GraphQL gateway over a game's reference catalogue, with its REST paths served byte for byte" \
      org.opencontainers.image.version="$VERSION" \
      org.opencontainers.image.revision="$COMMIT" \
      org.opencontainers.image.licenses="MIT"
# CA roots, for an upstream over https.
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/
COPY --from=build /out/gateway /gateway
# The disk cache's home; mount a volume here to keep it across restarts.
COPY --from=build --chown=65532:65532 /out/cache /var/cache/gateway
USER 65532:65532
ENV ADDR=:8080 \
    CATALOGUE_CACHE_DIR=/var/cache/gateway \
    GATEWAY_SHUTDOWN_DELAY=5s
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["/gateway", "healthcheck"]
ENTRYPOINT ["/gateway"]
