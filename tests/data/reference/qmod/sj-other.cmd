$ (as cloudsdk) qmod -sj 306
