$ qmod -e all.q@vm
