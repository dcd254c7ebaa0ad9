$ (as root) qmod -d all.q@vm
