$ (as root) qmod -usq all.q@vm
