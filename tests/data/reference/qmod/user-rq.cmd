$ qmod -rq all.q@vm
