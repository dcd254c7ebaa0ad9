$ (as root) qmod -c all.q@vm
