$ qconf -Mcal state-week-susp-over-off.input; sleep 2; qstat -f -q calt.q
