$ qmod -d all.q@vm
