$ qconf -Mcal state-week-on-over-off.input; sleep 2; qstat -f -q calt.q
