"""The contract: what the API sends and how the OpenAPI document describes it.

The wire types keep the names of the schemas they publish; each is built from the
domain's values (a view of a match, an event as one viewer may see it, a review), which
know nothing of the wire.
"""
