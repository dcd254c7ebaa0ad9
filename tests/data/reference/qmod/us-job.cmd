$ qmod -us 306
