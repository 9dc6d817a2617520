"""The use cases of a Scopa server, between the HTTP adapter (``api``) and storage
(``infra``): who may do what to which match, in what order, exactly once.

It speaks to the outside only through the ports in ``service.ports`` and knows nothing of
HTTP: no status code, URL or header name. Each capability is a small module of its own;
``services.build_services`` wires them into the one ``Services`` the adapters call.
"""
