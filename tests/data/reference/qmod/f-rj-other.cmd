$ (as cloudsdk) qmod -f -rj 306
