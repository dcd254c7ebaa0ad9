$ qconf -Mcal state-none.input; sleep 2; qstat -f -q calt.q
