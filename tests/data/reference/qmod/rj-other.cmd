$ (as cloudsdk) qmod -rj 306
