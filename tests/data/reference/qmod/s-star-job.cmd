$ (as root) qmod -sj *
