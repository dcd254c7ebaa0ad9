$ (as root) qmod -d nosuch.q all.q@vm
