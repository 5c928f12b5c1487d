"""Can the Hugging Face hub be used from here? One quick probe per process, in words.

:func:`hub_status` says whether and why (an offline variable is set; the endpoint answered
or not within 3 s); :class:`HubUnavailable` is what a hub checkpoint or data set raises when it
cannot. A socket and a thread, nothing of transformers: a machine without network fails at
once instead of after transformers' retries.
"""

from __future__ import annotations

import os

__all__ = ["HubUnavailable", "hub_offline", "hub_status"]


class HubUnavailable(ConnectionError):
    """A hub checkpoint (or data set) was asked for but the hub cannot be used from here."""


_OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
_PROBED: dict = {}  # endpoint -> (reachable, reason): the network is probed once per process


def _probe(url: str, timeout: float = 3.0) -> tuple[bool, str]:
    """Can a TCP connection to ``url``'s host be made within ``timeout`` s (DNS included)?"""
    import socket
    import threading
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    result: list = []

    def connect():
        try:
            socket.create_connection((host, port), timeout=timeout).close()
            result.append(None)
        except OSError as err:
            result.append(err)

    worker = threading.Thread(target=connect, daemon=True)
    worker.start()
    worker.join(timeout)
    if not result:
        return False, f"{url} did not answer within {timeout:g} s"
    if result[0] is None:
        return True, f"{url} is reachable"
    return False, f"{url} is not reachable from here ({result[0]})"


def hub_status() -> tuple[bool, str]:
    """Whether the Hugging Face hub can be used here, and the reason, in words.

    Disabled when ``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE`` is set; otherwise one quick
    connection to the hub (``HF_ENDPOINT``, default ``https://huggingface.co``; at most 3 s,
    once per process) decides, so a machine without network fails at once, saying so,
    instead of after transformers' retries.
    """
    for var in _OFFLINE_VARS:
        value = os.environ.get(var, "").strip()
        if value.lower() in ("1", "true", "yes", "on"):
            return False, f"{var}={value} is set"
    url = os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    if url not in _PROBED:
        _PROBED[url] = _probe(url)
    return _PROBED[url]


def hub_offline() -> bool:
    """True when the Hugging Face hub cannot be used here (:func:`hub_status`)."""
    return not hub_status()[0]
