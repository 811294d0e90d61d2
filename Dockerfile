# Lore's production image: compiled JavaScript (npm run build), production dependencies only, non-root.
#   docker build -t lore .
#   docker run -p 8080:8080 -v lore-data:/data lore                      # embedded topology
#   docker run -e DATABASE_URL=... -e WORKFLOW_ENGINE=temporal ... lore node dist/workflows/worker.js
FROM node:20-bookworm-slim AS build
WORKDIR /app
# onnxruntime-node's install script would download CUDA libraries; the CPU runtime ships in the
# package. npm 11.16+ skips it by package.json's allowScripts; the image's npm 10 by this variable.
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.ts scripts/build.ts
COPY migrations migrations
COPY dictionaries dictionaries
COPY core core
COPY runtime runtime
COPY api api
COPY workflows workflows
COPY operator operator
COPY cli cli
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 DATA_DIR=/data
# German and Dutch word lists: keyword search splits compounds with them (WORD_LISTS=auto).
RUN apt-get update && apt-get install -y --no-install-recommends wngerman wdutch && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown node:node /data
COPY --from=build --chown=root:root /app/package.json package.json
COPY --from=build --chown=root:root /app/node_modules node_modules
COPY --from=build --chown=root:root /app/dist dist
USER node
VOLUME ["/data"]
EXPOSE 8080
CMD ["node", "dist/api/main.js"]
