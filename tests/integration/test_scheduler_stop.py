"""The scheduler stops when told to, whatever it is waiting for: here a qmaster that
takes the connection but never answers (a silent CURVE ROUTER on a loopback port)."""
from __future__ import annotations

import asyncio

import zmq
import zmq.asyncio

from common import keys
from scheduler.service import SchedulerService


def test_stop_cancels_a_request_waiting_for_the_qmaster() -> None:
    async def scenario() -> None:
        ctx = zmq.asyncio.Context()
        silent = ctx.socket(zmq.ROUTER)
        events = ctx.socket(zmq.PUB)
        server = keys.new_pair()
        curve = keys.ClientKeys(keys.new_pair(), server.public)
        for sock in (silent, events):
            sock.setsockopt(zmq.CURVE_SERVER, 1)
            sock.setsockopt(zmq.CURVE_SECRETKEY, server.secret)
        try:
            port = silent.bind_to_random_port("tcp://127.0.0.1")
            event_port = events.bind_to_random_port("tcp://127.0.0.1")
            service = SchedulerService("127.0.0.1", port, event_port, curve)
            running = asyncio.ensure_future(service.run())
            await silent.recv_multipart()  # the snapshot request arrives, unanswered
            service.stop()
            # the request timeout is 5 s; a stop must not wait for it
            await asyncio.wait_for(running, timeout=2.0)
        finally:
            silent.close(0)
            events.close(0)
            ctx.term()
    asyncio.run(scenario())
