$ (as root) qmod -s all.q@vm
