$ (as root) qmod -us all.q@vm
