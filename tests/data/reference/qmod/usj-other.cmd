$ (as cloudsdk) qmod -usj 306
