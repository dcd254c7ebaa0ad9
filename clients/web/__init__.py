"""The live web view of a cell (``pyge web``, docs/web.md): a small read-only HTTP server
that follows the cell through the event subscription and pushes what the user's qstat,
qhost and qquota show to the page with Server-Sent Events.

``state`` is the pure table of what the page shows (events in, snapshot out), ``follow``
the threads that read the cell into it, ``server`` the asyncio HTTP server and ``main``
the command line; ``static/`` holds the page (no framework, no network: works offline).
"""
