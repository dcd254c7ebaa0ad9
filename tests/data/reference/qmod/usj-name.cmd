$ qmod -usj sleeper
