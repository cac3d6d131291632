# syntax=docker/dockerfile:1
#
# stormcheck as a container image, for `stormcheck kube` (README: "Shards on
# Kubernetes"): a static Go binary (CGO_ENABLED=0) on distroless static,
# which holds CA certificates and time zones and nothing else (no shell), run
# as the non-root user 65532. Build and push:
#
#   docker build -t ghcr.io/you/stormcheck:v1 --build-arg VERSION=v1 .
#   docker push ghcr.io/you/stormcheck:v1
#
# or for several architectures at once (the build stage cross-compiles):
#
#   docker buildx build --platform linux/amd64,linux/arm64 -t ghcr.io/you/stormcheck:v1 --push .
#
# cmd/stormcheck/dockerfile_test.go reads this file and runs its build
# command on the build context that .dockerignore leaves.

FROM --platform=$BUILDPLATFORM golang:1.26.8 AS build
WORKDIR /src
# The modules first: a change to the sources does not download them again.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# Set by BuildKit to the platform being built (docker build: the host's).
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -buildvcs=false -ldflags="-s -w -X main.version=${VERSION}" -o /out/stormcheck ./cmd/stormcheck

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/stormcheck /stormcheck
# distroless's nonroot user, numeric so that runAsNonRoot can verify it.
USER 65532:65532
ENTRYPOINT ["/stormcheck"]
CMD ["--help"]
