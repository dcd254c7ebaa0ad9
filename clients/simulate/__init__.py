"""``pyge simulate``: a workload replayed through the real dispatch pass and the real
policy on a virtual clock (docs/simulate.md).

- ``workload``: the readers (a cell's accounting file, the Standard Workload Format);
- ``config``: the configuration replayed (a cell's spool, or a new one, with changes);
- ``engine``: the event loop;
- ``metrics``: delivered share against the target, waits, slowdown, utilisation;
- ``render``: the text table and JSON; ``png``: the plot, standard library only;
- ``main``: the command line.
"""
