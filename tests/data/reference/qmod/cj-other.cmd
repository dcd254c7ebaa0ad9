$ (as cloudsdk) qmod -cj 308
