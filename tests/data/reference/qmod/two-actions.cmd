$ (as root) qmod -d all.q -e all.q
