# The llmcap image for Kubernetes (llmcap k8s manifest, docs/distributed.md):
#
#   docker build -t registry.example.com/llmcap:v1 --build-arg VERSION=v1 .
#   docker push registry.example.com/llmcap:v1
#
# A static binary (no cgo) at /usr/local/bin/llmcap, on PATH, in a distroless image
# running as its nonroot user (uid/gid 65532, as the manifest's pods). Every command
# runs in it, report included (its PDF, XLSX and charts are pure Go). The build
# context keeps .git, so the binary records its commit (llmcap version);
# .dockerignore leaves out only ignored files.

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /llmcap ./cmd/llmcap

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /llmcap /usr/local/bin/llmcap
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/llmcap"]
CMD ["--help"]
