$ (as root) qmod -r all.q@vm
