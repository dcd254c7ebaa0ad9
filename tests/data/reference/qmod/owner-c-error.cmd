$ qmod -c all.q@vm
