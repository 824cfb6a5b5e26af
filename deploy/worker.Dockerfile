# The fleet worker's image. Build from the repository root after `npm run build && npm pack -w packages/cli`:
#   docker build -f deploy/worker.Dockerfile --build-arg CLI_TGZ=attractor-cli-0.1.0.tgz -t attractor-worker .
FROM node:20-bookworm-slim

# git: workspaces are clones. util-linux: setpriv, so an agent ends with its worker. bubblewrap: the
# agent's sandbox (it needs unprivileged user namespaces; where a pod forbids them the agent runs
# without a sandbox, network included, and says so in its result). ripgrep: the agent's search.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git util-linux bubblewrap ripgrep ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*

ARG CLI_TGZ
COPY ${CLI_TGZ} /tmp/attractor-cli.tgz
RUN npm install -g /tmp/attractor-cli.tgz && rm /tmp/attractor-cli.tgz

RUN useradd --create-home --uid 10001 attractor && mkdir -p /work /results && chown attractor /work /results
USER attractor
WORKDIR /work

# tini forwards SIGTERM to the worker (it drains its running tasks) and reaps orphans.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["attractor", "fleet", "worker", "--concurrency", "4", "--work-dir", "/work"]
