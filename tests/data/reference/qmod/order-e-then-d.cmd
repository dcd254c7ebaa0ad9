$ (as root) qmod -e all.q@vm -d all.q@vm
