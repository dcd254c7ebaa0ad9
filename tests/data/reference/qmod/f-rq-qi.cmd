$ (as root) qmod -f -rq all.q@vm
