"""Executing the book: the reply to a finished cell is picked up the moment it arrives.

The defect (jupyter/nbclient#312; the workaround proposed in jupyter/nbclient#311 polls the
shell channel in 5 s slices): nbclient waits for a cell's ``execute_reply`` with
``await kc.shell_channel.get_msg(timeout)``, a ``zmq.asyncio`` poll that wakes when the event
loop sees the socket's ``ZMQ_FD`` become readable. That descriptor is edge-triggered: any
``zmq_send``, ``zmq_recv`` or ``ZMQ_EVENTS`` read on the socket may consume the pending
notification, and whoever calls one must check ``ZMQ_EVENTS`` afterwards. jupyter_client's
``Session.send`` sends through a *synchronous shadow* of the asyncio socket, so pyzmq's
asyncio layer never makes that check. nbclient sends on the shell socket while it waits for
the reply: its mimic of the Output widget (``nbclient.output_widget.OutputWidget``) syncs the
widget's state with a ``comm_msg`` from the task that reads IOPub. When the kernel's reply
is already queued at that moment (a busy machine delays the IOPub task), the send drains the
notification: the reply sits in the socket and nothing wakes the poll until the per-cell
timeout fires, and the cell "succeeds" ``timeout`` seconds late (without a timeout it hangs
forever, as in nbclient#312).

:func:`install` wraps ``AsyncZMQSocketChannel.send`` so that, after the synchronous send, it
reads ``ZMQ_EVENTS`` through the asyncio socket: pyzmq's public ``get(zmq.EVENTS)`` on a
``zmq.asyncio`` socket schedules its event handler when events are pending, which wakes the
poll at once. This is the one place where a sync send meets an async receive, so every async
client in the process (nbclient, myst-nb, jupyter-cache) is fixed. The Sphinx extension hook
:func:`setup` installs it in the book build (``_config.yml``, ``sphinx.extra_extensions``).
``tests/site/test_execution.py`` reproduces the lost wake-up with the installed
jupyter_client and pyzmq (pinned in the ``book`` extra) and fails without the patch; if a new
release fixes the defect upstream, its control test says so and this module can go.

A second guard bounds any wake-up lost another way (one more stall was seen under load with
the first patch alone, in a cell that builds a widget): ``get_msg`` polls in slices of at most
:data:`SLICE_S` seconds until its deadline, as jupyter/nbclient#311 proposes. A poll that
times out still finds a reply already queued, so a lost wake-up costs at most one slice.
"""

from __future__ import annotations

import functools
import time
from queue import Empty

import zmq
from jupyter_client.channels import AsyncZMQSocketChannel

__all__ = ["SLICE_S", "install", "installed", "setup"]

#: The longest single poll of the shell channel (seconds): the most a lost wake-up costs.
SLICE_S = 1.0


def _rearm_after_send(send):
    @functools.wraps(send)
    def wrapper(self, msg):
        send(self, msg)
        if self.socket is not None and not self.socket.closed:
            # Through the asyncio socket (not the shadow): it schedules the handler of any
            # event the synchronous send left pending, e.g. a reply already queued.
            self.socket.get(zmq.EVENTS)

    wrapper.companion_rearms = True
    return wrapper


def _poll_in_slices(get_msg):
    @functools.wraps(get_msg)
    async def wrapper(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = SLICE_S if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                return await get_msg(self, min(SLICE_S, left))
            except Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise

    wrapper.companion_slices = True
    return wrapper


def installed() -> bool:
    """Whether :func:`install` has patched ``AsyncZMQSocketChannel.send`` in this process."""
    return getattr(AsyncZMQSocketChannel.send, "companion_rearms", False) and getattr(
        AsyncZMQSocketChannel.get_msg, "companion_slices", False
    )


def install() -> None:
    """Patch ``AsyncZMQSocketChannel.send`` (idempotent; see the module docstring)."""
    if not getattr(AsyncZMQSocketChannel.send, "companion_rearms", False):
        AsyncZMQSocketChannel.send = _rearm_after_send(AsyncZMQSocketChannel.send)
    if not getattr(AsyncZMQSocketChannel.get_msg, "companion_slices", False):
        AsyncZMQSocketChannel.get_msg = _poll_in_slices(AsyncZMQSocketChannel.get_msg)


def setup(app):
    """Sphinx extension: install the patch before myst-nb executes any chapter."""
    install()
    return {"parallel_read_safe": True, "parallel_write_safe": True}
