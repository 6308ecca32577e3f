# syntax=docker/dockerfile:1
# Autograd Playground: the frontend is built in a Node stage; the app runs in a slim Python
# stage as a non-root user. `--build-arg GPU=1` adds CuPy (CUDA 12) for the "cuda" device.

FROM node:20-bookworm-slim AS frontend
WORKDIR /src
COPY package.json package-lock.json esbuild.config.mjs tsconfig.json ./
RUN npm ci --no-audit --no-fund
COPY static ./static
RUN npm run build

FROM python:3.11-slim-bookworm AS runtime
ARG GPU=0
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    OMP_NUM_THREADS=1 \
    OPENBLAS_NUM_THREADS=1 \
    MKL_NUM_THREADS=1 \
    AGP_HOST=0.0.0.0 \
    AGP_PORT=8000
WORKDIR /app
# libseccomp: the kernel jail that user programs run in (server/sandbox/jail.py). tini: PID 1,
# which reaps every orphan (a sandbox worker whose zygote died is re-parented to it) and passes
# signals on; Python as PID 1 would leave them zombies.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libseccomp2 tini \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY recorder ./recorder
COPY server ./server
RUN pip install --no-cache-dir . \
    && if [ "$GPU" = "1" ]; then pip install --no-cache-dir "cupy-cuda12x>=13"; fi
COPY templates ./templates
COPY lessons ./lessons
COPY examples ./examples
COPY static ./static
COPY --from=frontend /src/static/dist ./static/dist
RUN useradd --create-home --uid 10001 playground
USER 10001
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status == 200 else 1)"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["python", "-m", "server", "--host", "0.0.0.0", "--port", "8000"]
