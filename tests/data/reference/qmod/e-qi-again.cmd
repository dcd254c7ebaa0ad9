$ (as root) qmod -e all.q@vm
