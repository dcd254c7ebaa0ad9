"""Advance reservations in the qmaster (qrsub(1), qrstat(1), qrdel(1), qsub -ar): the
request handlers (``handlers``), the clock that moves ARs through their states and ends
their jobs (``lifecycle``), and the check of a job submitted into one (``submit``).
The rules that need no cluster are ``common.ar``'s."""
