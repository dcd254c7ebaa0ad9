$ (as root) qmod -rq all.q@vm
