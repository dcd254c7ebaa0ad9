$ qconf -Mcal state-year-over-week.input; sleep 2; qstat -f -q calt.q
