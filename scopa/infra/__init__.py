"""Adapters: storage, notification, settings and the command line."""
