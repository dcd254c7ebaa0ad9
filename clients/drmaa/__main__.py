"""``python -m clients.drmaa --fd N``: the DRMAA agent libdrmaa.so starts at drmaa_init
(clients.drmaa.server)."""
from clients.drmaa.server import main

if __name__ == "__main__":
    raise SystemExit(main())
