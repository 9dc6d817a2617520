"""One controller per resource; each handler reads the request and calls the service."""
