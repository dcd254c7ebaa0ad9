$ qmod -s all.q@vm
