$ (as root) qmod -sq all.q@vm
