$ (as root) qmod -e all.q,all.q@vm
