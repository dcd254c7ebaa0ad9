$ qconf -Mcal state-year-active-over-week.input; sleep 2; qstat -f -q calt.q
