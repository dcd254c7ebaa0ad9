$ qmod -sj sleeper
