$ qmod -f -d all.q@vm
