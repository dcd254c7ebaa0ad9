$ (as root) qmod -d all.q@nosuchhost
