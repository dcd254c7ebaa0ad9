$ (as root) qmod -s all.q@vm 306
