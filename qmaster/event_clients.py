"""The qmaster's event clients as ``qconf -secl``/``-sss``/``-kec`` see them (pure).

The scheduler is this version's one event client: it subscribes to the event port and
asks for a snapshot whenever it (re)builds its mirror, which registers it (id 1, as in
8.1.9, where the scheduler thread is always event client 1) with the host its
connection comes from. Its requests and pings (one every ``scheduler.service``'s
``PING_SECONDS``) keep it listed; one not heard from for ``SILENT_SECONDS`` is taken to
be gone (its process stopped without telling: SIGKILL, a lost host). ``qconf -ks``,
``-kt scheduler`` and ``-kec 1`` drop it at once, as they tell it to stop; a scheduler
started again registers with its first snapshot.
"""
from __future__ import annotations

from dataclasses import dataclass

SCHEDULER_ID = 1
SCHEDULER_NAME = "scheduler"
SILENT_SECONDS = 20.0  # four of the scheduler's pings


@dataclass
class EventClient:
    """One connected event client: 8.1.9's -secl columns and when it was last heard."""

    client_id: int
    name: str
    host: str
    seen: float


@dataclass
class EventClients:
    """The registry (the scheduler's entry only: no other client subscribes)."""

    scheduler: EventClient | None = None

    def registered(self, host: str, now: float) -> None:
        """The scheduler asked for a snapshot: it is (again) an event client."""
        self.scheduler = EventClient(SCHEDULER_ID, SCHEDULER_NAME, host, now)

    def heard(self, now: float) -> None:
        """A request or ping of the scheduler: still there (a dropped one stays out)."""
        if self.scheduler is not None:
            self.scheduler.seen = now

    def listed(self, now: float) -> list[EventClient]:
        """The clients -secl shows: those heard from lately."""
        client = self.scheduler
        return [client] if client is not None and now - client.seen <= SILENT_SECONDS else []

    def drop(self, client_id: int) -> EventClient | None:
        """Forget the client (it has been told to stop); the one dropped, if listed."""
        client = self.scheduler
        if client is None or client.client_id != client_id:
            return None
        self.scheduler = None
        return client
