$ qmod -cq all.q@vm
