"""Where a job may run: the pure placement library shared by the scheduler's dispatch pass
and by the qmaster (order checks, ``qsub -w v``, ``qstat -j`` reasons). No sockets, no
clock: data in, data out."""
