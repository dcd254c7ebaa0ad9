"""Renderers: Grid Engine 8.1.9 text and XML output of qstat, qhost and qacct, and value formats."""
