$ (as root) qmod -d all.q@@allhosts
