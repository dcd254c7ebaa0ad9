$ qconf -Mcal state-year-other-day-week.input; sleep 2; qstat -f -q calt.q
