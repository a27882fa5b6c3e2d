# One image for the worker and the API (docker-compose.yml picks the command).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/* \
 && npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/bundle-workflows.ts scripts/copy-page.js ./scripts/
RUN npx tsc -p tsconfig.build.json && npx tsx scripts/bundle-workflows.ts && node scripts/copy-page.js && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY examples ./examples
ENTRYPOINT ["node", "bin/gate.js"]
CMD ["worker"]
