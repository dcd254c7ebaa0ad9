$ (as cloudsdk) qmod -d all.q@vm
