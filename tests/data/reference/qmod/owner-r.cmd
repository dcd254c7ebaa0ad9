$ qmod -r all.q@vm
