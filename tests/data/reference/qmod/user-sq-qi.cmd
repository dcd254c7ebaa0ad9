$ qmod -sq all.q@vm
