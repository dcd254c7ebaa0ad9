$ qconf -Mcal state-year-over-week-2.input; sleep 2; qstat -f -q calt.q
