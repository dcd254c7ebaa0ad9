$ qconf -Mcal state-year-two-entries.input; sleep 2; qstat -f -q calt.q
