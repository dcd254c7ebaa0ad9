qmod -sj 129
