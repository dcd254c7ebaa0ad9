$ (as root) qmod -us all.q@vm 306
