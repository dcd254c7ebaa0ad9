$ (as root) qmod -cq all.q@vm
