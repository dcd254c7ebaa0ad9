$ qmod -us all.q@vm
