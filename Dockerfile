FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY constraints.txt pyproject.toml README.md LICENSE ./
COPY scopa ./scopa
COPY openapi ./openapi
# Pinned: every rebuild gets the same libraries (constraints.txt says how to renew them).
# The server's user owns /data, the one folder it may write.
RUN pip install --no-cache-dir -c constraints.txt . \
    && useradd --system --uid 10001 --create-home --home-dir /data scopa
# Without a SCOPA_DATABASE_URL of its own (compose names Postgres), the image serves on
# the embedded SQLite, in that folder: a volume, so the matches outlive the container.
ENV SCOPA_DATABASE_URL=sqlite+aiosqlite:////data/scopa.db
VOLUME /data
USER scopa
EXPOSE 8000
# python:*-slim has no curl or wget; Python itself is the one client sure to be there.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=5 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/ready', timeout=2)"]
CMD ["scopa", "serve", "--host", "0.0.0.0", "--port", "8000"]
