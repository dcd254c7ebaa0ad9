$ qconf -Mcal state-year-two-entries-2.input; sleep 2; qstat -f -q calt.q
