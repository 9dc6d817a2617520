FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY domain ./domain
COPY api ./api
COPY infra ./infra
COPY migrations ./migrations
COPY openapi ./openapi
RUN pip install --no-cache-dir . && useradd --system --uid 10001 scopa
USER scopa
EXPOSE 8000
CMD ["scopa", "serve", "--host", "0.0.0.0", "--port", "8000"]
