# Image for the control plane and the gateway workers (one image, two commands).
# docker-compose.yml runs the control plane with the default CMD and the workers with
# `npx tsx src/entry/worker.ts`. No HEALTHCHECK here: compose defines the checks, using
# node's own fetch so the image needs no curl.
FROM node:20-bookworm-slim

WORKDIR /app

COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY proto ./proto
COPY src ./src
COPY graphql ./graphql
COPY workers ./workers
COPY tsconfig.json ./

ENV HOST=0.0.0.0 NODE_ENV=production

USER node

# 8080: control plane HTTP (/graphql, REST, /health); 50051: control plane gRPC;
# 8787: worker HTTP.
EXPOSE 8080 50051 8787

CMD ["npx", "tsx", "src/entry/control-plane.ts"]
