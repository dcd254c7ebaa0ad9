$ qconf -Mcal state-year-one-entry.input; sleep 2; qstat -f -q calt.q
