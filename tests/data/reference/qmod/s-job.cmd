$ qmod -s 306
